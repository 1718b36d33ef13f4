// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's layout table (user/vm/cpython/layout_table.c): the committed
 * file is what the generator writes from the pyenv builds on this
 * machine; and builds without DWARF, made here as users get them
 * (objcopy --strip-debug of each pyenv libpython3.X.so.1.0, its build-id
 * changed so that it is another build to the recorder's caches), are laid
 * out by their minor version's row, found live and walked; a copy whose
 * code objects are another size, or whose version the table lacks, is
 * named and not walked; one whose own layout differs from its row says
 * so. A machine without the builds says so and skips.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detect_file.h"
#include "elf_facts.h"
#include "pylayout/gen.h"
#include "unit.h"
#include "util.h"
#include "vm/cpython/cpython.h"
#include "cpython_pyenv.h"

#define MAP_START 0x10000000ULL
#define TABLE "user/vm/cpython/layout_table.c"

static bool have_pyenv_lib(const struct version *v, char *path, size_t len)
{
	cpython_pyenv_path(path, len, v, "lib/libpython");
	if (access(path, R_OK)) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
		return false;
	}
	return true;
}

UNIT_TEST(cpython_layout_table_current)
{
	char paths[PYLAYOUT_BUILDS][512], why[512] = "", *want, *got = NULL;
	const char *libs[PYLAYOUT_BUILDS];
	size_t got_len = 0, line = 1, i;
	FILE *out;

	for (i = 0; i < PYLAYOUT_BUILDS; i++) {
		pylayout_pyenv_lib(paths[i], sizeof(paths[i]), pylayout_pyenv_versions[i]);
		libs[i] = paths[i];
		if (access(paths[i], R_OK)) {
			fprintf(stderr, "  skipped: no %s (the pyenv build)\n", paths[i]);
			return;
		}
	}
	elf_version(EV_CURRENT);
	out = open_memstream(&got, &got_len);
	CHECK(out && !pylayout_gen(out, libs, PYLAYOUT_BUILDS, why, sizeof(why)));
	if (out)
		fclose(out);
	if (*why)
		fprintf(stderr, "  %s\n", why);
	want = read_file(TABLE, 1 << 20);
	CHECK(want && got);
	for (i = 0; want && got && want[i] && want[i] == got[i]; i++)
		line += want[i] == '\n';
	if (want && got && strcmp(want, got))
		fprintf(stderr, "  %s differs from what the pyenv builds give at line %zu: "
			"make pylayout-table rewrites it\n", TABLE, line);
	CHECK(want && got && !strcmp(want, got));
	free(want);
	free(got);
}

/* Where @vaddr of @elf's loaded image is in its file, or -1. */
static long file_offset(Elf *elf, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_addr &&
		    vaddr >= sh.sh_addr && vaddr < sh.sh_addr + sh.sh_size)
			return (long)(vaddr - sh.sh_addr + sh.sh_offset);
	return -1;
}

/* What a stripped copy gets changed besides its build-id. */
struct patch {
	bool no_debug_offsets;	/* 3.13: its _PyRuntime's cookie broken */
	int64_t code_size;	/* PyCode_Type's tp_basicsize, or 0: as it is */
	uint32_t py_version;	/* Py_Version, or 0: as it is */
	int64_t threads_head;	/* 3.13: _Py_DebugOffsets' threads_head, or 0: as it is */
};

/* Bytes at @sym + @add in the copy @fd of @elf replaced with @len of @data. */
static int poke(int fd, Elf *elf, const char *sym, long add, const void *data, size_t len)
{
	GElf_Sym s;
	long at;

	if (vmstack_elf_symbol(elf, sym, &s))
		return -1;
	at = file_offset(elf, s.st_value);
	return at < 0 || pwrite(fd, data, len, at + add) != (ssize_t)len ? -1 : 0;
}

/*
 * @v's libpython stripped of its debug information into @dir (made), its
 * build-id's last byte changed (each copy's otherwise: the recorder keeps
 * layouts by build-id), patched as @p says: 0, or -1.
 */
static int stripped_copy(const struct version *v, const char *dir, const struct patch *p,
			 char *copy, size_t len)
{
	char lib[512], cmd[1200], id[48];
	unsigned int byte;
	static unsigned char copies;
	unsigned char bid[20];
	int fd, bad = 0;
	long note;
	Elf *elf;
	size_t n;

	cpython_pyenv_path(lib, sizeof(lib), v, "lib/libpython");
	snprintf(copy, len, "%s/libpython3.%s.so.1.0", dir, v->minor);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && objcopy --strip-debug '%s' '%s'", dir, lib, copy);
	if (system(cmd))
		return -1;
	fd = open(copy, O_RDWR);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || vmstack_elf_build_id(elf, id, sizeof(id)))
		bad = -1;
	for (n = 0; !bad && n < sizeof(bid) && sscanf(id + 2 * n, "%2x", &byte) == 1; n++)
		bid[n] = (unsigned char)byte;
	/* the note's bytes, near the file's start: its last one changed */
	if (!bad) {
		unsigned char *data = malloc(1 << 16), *hit;
		ssize_t got = pread(fd, data, 1 << 16, 0);

		hit = data && got > 0 ? memmem(data, (size_t)got, bid, n) : NULL;
		note = hit ? hit - data + (long)n - 1 : -1;
		if (note >= 0) {
			data[note] ^= ++copies;
			bad |= pwrite(fd, data + note, 1, note) != 1;
		} else {
			bad = -1;
		}
		free(data);
	}
	if (!bad && p->no_debug_offsets)
		bad |= poke(fd, elf, "_PyRuntime", 0, "ydebugpy", 8);
	if (!bad && p->code_size)
		bad |= poke(fd, elf, "PyCode_Type", 32, &p->code_size, 8);
	if (!bad && p->threads_head)
		bad |= poke(fd, elf, "_PyRuntime", 72, &p->threads_head, 8);
	if (!bad && p->py_version)
		bad |= poke(fd, elf, "Py_Version", 0, &p->py_version, 4);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

static void remove_copy(const char *dir, const char *copy)
{
	unlink(copy);
	rmdir(dir);
}

/*
 * Each stripped copy: no DWARF left, laid out by its row (the same layout
 * as its original's DWARF), and live, its frames walked and named.
 */
UNIT_TEST(cpython_table_stripped_found)
{
	static const struct patch none, no_dbg = { .no_debug_offsets = true };
	unsigned int i;

	elf_version(EV_CURRENT);
	for (i = 0; i < CPYTHON_PYENV_VERSIONS; i++) {
		const struct version *v = &cpython_pyenv_versions[i];
		bool is313 = !strcmp(v->minor, "13");
		const struct cpython_build *b;
		struct cpython_layout dw;
		struct vmstack_vm_found f;
		char lib[512], dir[600], copy[700], want[160], why[256] = "", cwd[512];
		int fd;
		Elf *elf;

		if (!have_pyenv_lib(v, lib, sizeof(lib)))
			continue;
		/* absolute: the live process's maps name it so */
		CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
		snprintf(dir, sizeof(dir), "%s/build/unit-pytable-%s", cwd, v->minor);
		CHECK(!stripped_copy(v, dir, is313 ? &no_dbg : &none, copy, sizeof(copy)));
		fd = open(copy, O_RDONLY);
		elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		CHECK(elf && cpython_layout_dwarf(elf, (unsigned int)atoi(v->minor), &dw, why,
						  sizeof(why)) < 0);
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		fd = open(lib, O_RDONLY);
		elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
		CHECK(elf && !cpython_layout_dwarf(elf, (unsigned int)atoi(v->minor), &dw, why,
						   sizeof(why)));
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		snprintf(want, sizeof(want), "CPython %s (layout from the table (%s's DWARF))",
			 v->dir, v->dir);
		CHECK(unit_detect_file("cpython", copy, MAP_START, &f, why, sizeof(why)) ==
		      VMSTACK_DETECT_YES);
		fprintf(stderr, "  %s: %s%s%s\n", copy, f.build_name ? f.build_name : "?",
			*why ? ": " : "", why);
		CHECK(f.prog && f.build_name && !strcmp(f.build_name, want));
		b = f.build;
		/* The row's layout is the original's DWARF's. */
		CHECK(b && !cpython_layout_differs(&b->L, &dw) && b->shim_sp == v->shim_sp);
		cpython_live_version(v, false, dir, want);
		if (cpython_frame_objects(v))
			cpython_live_version(v, true, dir, want);
		remove_copy(dir, copy);
		if (!is313)
			continue;
		/*
		 * 3.13 stripped, its _Py_DebugOffsets kept: they are used, the
		 * row agrees. (Mapped elsewhere: a build is one layout and one
		 * PyCode_Type, whatever file has them.)
		 */
		CHECK(!stripped_copy(v, dir, &none, copy, sizeof(copy)));
		CHECK(unit_detect_file("cpython", copy, 2 * MAP_START, &f, why, sizeof(why)) ==
		      VMSTACK_DETECT_YES);
		fprintf(stderr, "  %s, _Py_DebugOffsets kept: %s\n", copy,
			f.build_name ? f.build_name : "?");
		CHECK(f.build_name && !strcmp(f.build_name,
					      "CPython 3.13.0 (layout from _Py_DebugOffsets)"));
		remove_copy(dir, copy);
	}
}

/*
 * A stripped 3.12 whose PyCode_Type says another size than the row's
 * reference build: refused, named. One whose Py_Version says 3.16 (no
 * row, no _Py_DebugOffsets of a layout vmstack reads): named, not walked.
 * A stripped 3.13 whose _Py_DebugOffsets put threads.head elsewhere: its
 * own offsets used, the row's difference named.
 */
UNIT_TEST(cpython_table_other_builds)
{
	const struct version *v = &cpython_pyenv_versions[2];	/* 3.12.1 */
	const char *dir = "build/unit-pytable-other";
	struct patch other_size = { .code_size = 200 }, v316 = { .py_version = 0x031000f0 };
	struct patch other_head = { .threads_head = 7344 + 8 };
	struct vmstack_vm_found f;
	char lib[512], copy[600], why[256] = "";

	if (!have_pyenv_lib(v, lib, sizeof(lib)))
		return;
	elf_version(EV_CURRENT);
	CHECK(!stripped_copy(v, dir, &other_size, copy, sizeof(copy)));
	CHECK(unit_detect_file("cpython", copy, MAP_START, &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_UNKNOWN);
	fprintf(stderr, "  code objects of another size: %s\n", why);
	CHECK(!f.prog && strstr(why, "PyCode_Type says its objects are 200 bytes, not 192 as in "
				"3.12.1 (the layout table's row)"));
	remove_copy(dir, copy);
	CHECK(!stripped_copy(v, dir, &v316, copy, sizeof(copy)));
	CHECK(unit_detect_file("cpython", copy, MAP_START, &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_UNKNOWN);
	fprintf(stderr, "  3.16: %s\n", why);
	CHECK(!f.prog && !strcmp(why, "CPython 3.16.0, a version vmstack does not know"));
	remove_copy(dir, copy);
	v = &cpython_pyenv_versions[3];	/* 3.13.0 */
	if (!have_pyenv_lib(v, lib, sizeof(lib)))
		return;
	CHECK(!stripped_copy(v, dir, &other_head, copy, sizeof(copy)));
	CHECK(unit_detect_file("cpython", copy, MAP_START, &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_YES);
	fprintf(stderr, "  3.13, threads.head moved: %s\n", f.build_name ? f.build_name : "?");
	CHECK(f.prog && f.build_name &&
	      !strcmp(f.build_name, "CPython 3.13.0 (layout from _Py_DebugOffsets; the table "
		      "(3.13.0's DWARF) differs on is_threads_head)"));
	remove_copy(dir, copy);
}
