// SPDX-License-Identifier: GPL-2.0
/*
 * Debian's CPython 3.14 and 3.15 (sid's python3.1X-minimal, unpacked by
 * scripts/sid-python into /opt/vmstack/python3.1X): no DWARF and no row
 * of the layout table, so laid out by their _Py_DebugOffsets alone, in
 * each version's layout of them (debug_offsets_table.c); their frames hold
 * their code as a tagged _PyStackRef; GCC (PGO) moved the eval loop into
 * _PyEval_EvalFrameDefault.cold, a second entry range; its shim's place
 * is proved from its code. Found in the file, then walked live by the
 * recorder's program and named (cpython_live.c). Not pinned to one
 * patch release: sid moves, and what is checked holds for each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect_file.h"
#include "unit.h"
#include "vm/cpython/cpython.h"
#include "cpython_pyenv.h"
#include "vm_prog_check.h"

#define MAP_START 0x10000000ULL

/* sid's python3.@minor's file, detected and walked live. */
static void sid_python(const char *minor)
{
	const struct cpython_build *b;
	struct vmstack_vm_found f;
	struct version v = { .minor = minor };
	char why[256] = "", want[232], path[96], dir[32], head[16];
	const char *name, *tail = " (layout from _Py_DebugOffsets)";
	size_t n;

	snprintf(path, sizeof(path), "/opt/vmstack/python3.%s/usr/bin/python3.%s", minor, minor);
	snprintf(dir, sizeof(dir), "3.%s (sid)", minor);
	snprintf(head, sizeof(head), "CPython 3.%s.", minor);
	v.dir = dir;
	v.path = path;
	if (access(path, X_OK)) {
		fprintf(stderr, "  no %s: scripts/setup unpacks it (scripts/sid-python 3.%s)\n",
			path, minor);
		CHECK(!"sid's CPython");
		return;
	}
	CHECK(unit_detect_file("cpython", path, MAP_START, &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_YES);
	name = f.build_name ? f.build_name : "?";
	fprintf(stderr, "  %s: %s%s%s\n", path, name, *why ? ": " : "", why);
	n = strlen(name);
	CHECK(n > strlen(tail) && !strncmp(name, head, strlen(head)) &&
	      !strcmp(name + n - strlen(tail), tail));
	b = f.build;
	CHECK(f.prog && b);
	if (!f.prog || !b)
		return;
	CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
	CHECK(b->L.minor == (unsigned int)atoi(minor) && b->L.exec_tag_bits == 3 &&
	      b->L.owner_cstack == 3 && b->L.shim_none && b->L.ts_current_frame > 0 &&
	      b->L.fr_owner > 0);
	/* Proved, from the stack pointer or the frame pointer. */
	CHECK(b->shim_sp >= 0x40 || b->shim_bp < 0);
	/* The cold part: a range of its own, outside the symbol's. */
	fprintf(stderr, "  entry ranges %#llx-%#llx, %#llx-%#llx; shim at sp + %d / bp %d\n",
		(unsigned long long)f.desc4.ranges[0].start,
		(unsigned long long)f.desc4.ranges[0].end,
		(unsigned long long)f.desc4.ranges[1].start,
		(unsigned long long)f.desc4.ranges[1].end, b->shim_sp, b->shim_bp);
	CHECK(f.desc4.ranges[1].end > f.desc4.ranges[1].start &&
	      (f.desc4.ranges[1].end <= f.desc4.ranges[0].start ||
	       f.desc4.ranges[1].start >= f.desc4.ranges[0].end));
	snprintf(want, sizeof(want), "%s", name);
	cpython_live_version(&v, false, NULL, want);
}

UNIT_TEST(cpython_sid_314)
{
	/*
	 * Its _Py_DebugOffsets' version made 3.14.10b1's (and its build-id
	 * another: layouts are kept by build): a pre-release is refused by name.
	 */
	static const char rel[] = "xdebugpy\xf0\x0a\x0e\x03", pre[] = "xdebugpy\xb1\x0a\x0e\x03";
	const char *py = "/opt/vmstack/python3.14/usr/bin/python3.14";
	const char *tmp = "build/unit-py314-prerelease.tmp", *copy = "build/unit-py314-prerelease";
	unsigned char id[64], id2[64];
	struct vmstack_vm_found f;
	char why[256] = "";
	size_t n;

	sid_python("14");
	n = access(py, R_OK) ? 0 : unit_build_id_bytes(py, id, sizeof(id));
	CHECK(n > 0);
	if (!n || !unit_patched_copy(py, rel, pre, 12, 1, tmp))
		return;
	memcpy(id2, id, n);
	id2[n - 1] ^= 1;
	if (!unit_patched_copy(tmp, id, id2, n, 1, copy))
		return;
	unlink(tmp);
	CHECK(unit_detect_file("cpython", copy, MAP_START, &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_UNKNOWN);
	fprintf(stderr, "  pre-release: %s\n", why);
	CHECK(!f.prog && strstr(why, "a pre-release of CPython 3.14") != NULL);
	unlink(copy);
}

UNIT_TEST(cpython_sid_315)
{
	sid_python("15");
}
