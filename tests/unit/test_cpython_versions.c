// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.9, 3.10, 3.12 and 3.13 as the pyenv builds every machine of the
 * project carries ($(pyenv root)/versions/3.9.18 ... 3.13.0, --enable-shared:
 * Python in libpython3.X.so.1.0, with DWARF): found, laid out as
 * runtime-layouts.md measured them (DWARF; 3.13's _Py_DebugOffsets equal
 * to it), and, as root, the recorder's own program run over a live
 * interpreter's memory under the shapes' fake native stack, its frames
 * named by the namer from that process (3.9 and 3.10: a second thread's
 * too; cpython_live.c). A machine without the builds says so and skips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf_facts.h"
#include "detect_file.h"
#include "file.h"
#include "unit.h"
#include "util.h"
#include "vm/cpython/cpython.h"
#include "cpython_pyenv.h"
#include "vm_prog_check.h"

#define MAP_START 0x10000000ULL

const struct version cpython_pyenv_versions[CPYTHON_PYENV_VERSIONS] = {
	{ "3.9.18", "9", 0x66920, 35197, "CPython 3.9.18 (layout from DWARF)",
	  32, 8, -1, -1, -1, 48, 72, -1, NULL },
	{ "3.10.13", "10", 0x65540, 38051, "CPython 3.10.13 (layout from DWARF)",
	  32, 8, -1, -1, -1, 48, 72, -1, NULL },
	{ "3.12.1", "12", 0x10bdc0, 51245, "CPython 3.12.1 (layout from DWARF)",
	  40, 72, 144, 70, 192, 40, 56, 0xf0, NULL },
	{ "3.13.0", "13", 0x8b8e0, 48125, "CPython 3.13.0 (layout from _Py_DebugOffsets = DWARF)",
	  632, 7344, 160, 70, 200, 40, 56, 0x120, NULL },
};


static enum vmstack_detect detect_file(const char *path, struct vmstack_vm_found *f,
				       char *why, size_t len)
{
	return unit_detect_file("cpython", path, MAP_START, f, why, len);
}

UNIT_TEST(cpython_pyenv_builds_found)
{
	unsigned int i;

	for (i = 0; i < CPYTHON_PYENV_VERSIONS; i++) {
		const struct version *v = &cpython_pyenv_versions[i];
		const struct cpython_build *b;
		struct vmstack_vm_found f;
		struct timespec t0, t1;
		char path[512], why[256] = "";

		cpython_pyenv_path(path, sizeof(path), v, "lib/libpython");
		if (access(path, R_OK)) {
			fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "  %s: %s, found in %.0f ms%s%s\n", path,
			f.build_name ? f.build_name : "?",
			(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
			*why ? ": " : "", why);
		CHECK(f.prog && f.build_name && !strcmp(f.build_name, v->build_name));
		CHECK(f.desc4.ranges[0].start == MAP_START + v->eval &&
		      f.desc4.ranges[0].end == MAP_START + v->eval + v->eval_size);
		CHECK(f.desc4.prog_len > 0 && f.desc4.flags == VMSTACK_VM4_F_NATIVE_STEP);
		/* What the module will check at VM_ADD. */
		CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
		fprintf(stderr, "  its program: %u instructions, %u constants\n", f.desc4.prog_len,
			f.desc4.nr_consts);
		b = f.build;
		if (!b)
			continue;
		CHECK(b->L.rt_interp_head == v->rt_interp_head &&
		      b->L.is_threads_head == v->is_threads_head &&
		      b->L.ts_native_tid == v->ts_native_tid && b->L.fr_owner == v->fr_owner &&
		      b->L.co_code == v->co_code && b->L.owner_cstack == (v->fr_owner < 0 ? -1 : 3) &&
		      b->L.str_ascii_data == v->str_ascii_data &&
		      b->L.str_compact_data == v->str_compact_data);
		/* 3.9: f_lasti and co_lnotab where runtime-layouts.md has them. */
		if (!strcmp(v->minor, "9"))
			CHECK(b->L.fr_lasti == 104 && b->L.co_linetable == 120 &&
			      b->L.ts_thread_id == 176 && b->L.ts_frame == 24);
		/* Detected again: the same build, DWARF not read twice. */
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES && f.build == b);
		CHECK(b->shim_sp == v->shim_sp);
	}
}

/*
 * The other pyenv builds: 3.11.7 by 3.11's table (its name unchanged);
 * 3.8 not claimed (no Py_Version, and Py_GetVersion formats 3.8): the
 * unwalked runtimes name it.
 */
UNIT_TEST(cpython_pyenv_311_38)
{
	static const struct version v311 = { .dir = "3.11.7", .minor = "11" };
	static const struct version v38 = { .dir = "3.8.18", .minor = "8" };
	struct vmstack_vm_found f;
	char path[512], why[256] = "";

	cpython_pyenv_path(path, sizeof(path), &v311, "lib/libpython");
	if (access(path, R_OK)) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
	} else {
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
		CHECK(!f.prog && f.build_name && !strcmp(f.build_name, "CPython 3.11.7"));
	}
	cpython_pyenv_path(path, sizeof(path), &v38, "lib/libpython");
	if (access(path, R_OK))
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
	else
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
}

/*
 * 3.13 whose _Py_DebugOffsets say another threads.head than its DWARF:
 * refused. (Another build-id too: layouts are kept by build.)
 */
UNIT_TEST(cpython313_debug_offsets_disagree)
{
	static const unsigned char cookie[] = { 'x', 'd', 'e', 'b', 'u', 'g', 'p', 'y',
						0xf0, 0x00, 0x0d, 0x03 };
	const char *copy = "build/unit-py313-debug-offsets";
	struct vmstack_vm_found f;
	char path[512], why[256] = "";
	unsigned char *data, *p, id[64];
	size_t size, idn;
	uint64_t head;
	FILE *fp;

	cpython_pyenv_path(path, sizeof(path), &cpython_pyenv_versions[3], "lib/libpython");	/* 3.13.0 */
	fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
		return;
	}
	idn = unit_build_id_bytes(path, id, sizeof(id));
	CHECK(idn > 0);
	fseek(fp, 0, SEEK_END);
	size = (size_t)ftell(fp);
	rewind(fp);
	data = malloc(size);
	CHECK(data && fread(data, 1, size, fp) == size);
	fclose(fp);
	p = data ? memmem(data, size, cookie, sizeof(cookie)) : NULL;
	CHECK(p != NULL);
	if (!p) {
		free(data);
		return;
	}
	memcpy(&head, p + 72, 8);	/* interpreter_state.threads_head */
	CHECK(head == 7344);
	head += 8;
	memcpy(p + 72, &head, 8);
	p = idn ? memmem(data, size, id, idn) : NULL;
	CHECK(p != NULL);
	if (p)
		p[idn - 1] ^= 1;
	fp = fopen(copy, "w");
	CHECK(fp && fwrite(data, 1, size, fp) == size);
	if (fp)
		fclose(fp);
	free(data);
	CHECK(detect_file(copy, &f, why, sizeof(why)) == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "_Py_DebugOffsets and its DWARF disagree on is_threads_head") != NULL);
	unlink(copy);
}


UNIT_TEST(cpython_pyenv_live)
{
	unsigned int i;

	for (i = 0; i < CPYTHON_PYENV_VERSIONS; i++) {
		cpython_live_version(&cpython_pyenv_versions[i], false, NULL, NULL);
		if (cpython_frame_objects(&cpython_pyenv_versions[i]))
			cpython_live_version(&cpython_pyenv_versions[i], true, NULL, NULL);
	}
}
