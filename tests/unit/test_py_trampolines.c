// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's perf trampoline stubs (unwind/py_trampolines.h): rules from
 * their instructions, for the stub of the 3.12.1 and 3.13.0 builds (its
 * bytes as the pyenv builds' libpython holds them between
 * _Py_trampoline_func_start and _end) and one with a frame pointer, and
 * the rows of an arena of copies.
 */
#include <string.h>
#include <stdlib.h>

#include "unit.h"
#include "unwind/py_trampolines.h"

static struct vmstack_py_tramp stub(const char *code, size_t size)
{
	struct vmstack_py_tramp t;

	memset(&t, 0, sizeof(t));
	memcpy(t.code, code, size);
	t.size = size;
	return t;
}

static int row_is(const struct vmstack_uw_row *r, uint32_t start, int cfa, int32_t off,
		  int rbp, int16_t rbp_off)
{
	return r->start == start && r->cfa == cfa && r->cfa_off == off && r->rbp == rbp &&
	       r->rbp_off == rbp_off;
}

/* sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
#define STUB_312 "\x48\x83\xec\x08\xff\xd1\x48\x83\xc4\x08\xc3"

UNIT_TEST(py_tramp_stub_312)
{
	struct vmstack_py_tramp t = stub(STUB_312, 11);

	CHECK(vmstack_py_tramp_rules(&t) == 0);
	CHECK(t.nrows == 3);
	CHECK(row_is(&t.rows[0], 0, VMSTACK_UW_CFA_RSP, 8, VMSTACK_UW_RBP_SAME, 0));
	/* The call's return address (offset 6) is looked up at 5: CFA = rsp + 16. */
	CHECK(row_is(&t.rows[1], 4, VMSTACK_UW_CFA_RSP, 16, VMSTACK_UW_RBP_SAME, 0));
	CHECK(row_is(&t.rows[2], 10, VMSTACK_UW_CFA_RSP, 8, VMSTACK_UW_RBP_SAME, 0));
}

/* endbr64; push %rbp; mov %rsp,%rbp; call *%rcx; pop %rbp; ret */
UNIT_TEST(py_tramp_stub_frame_pointer)
{
	struct vmstack_py_tramp t =
		stub("\xf3\x0f\x1e\xfa\x55\x48\x89\xe5\xff\xd1\x5d\xc3", 12);

	CHECK(vmstack_py_tramp_rules(&t) == 0);
	CHECK(t.nrows == 4);
	CHECK(row_is(&t.rows[0], 0, VMSTACK_UW_CFA_RSP, 8, VMSTACK_UW_RBP_SAME, 0));
	CHECK(row_is(&t.rows[1], 5, VMSTACK_UW_CFA_RSP, 16, VMSTACK_UW_RBP_SAVED, -16));
	CHECK(row_is(&t.rows[2], 8, VMSTACK_UW_CFA_RBP, 16, VMSTACK_UW_RBP_SAVED, -16));
	CHECK(row_is(&t.rows[3], 11, VMSTACK_UW_CFA_RSP, 8, VMSTACK_UW_RBP_SAME, 0));
}

UNIT_TEST(py_tramp_stub_unknown)
{
	/* mov %rdi,%rax: not what a stub is made of. */
	struct vmstack_py_tramp t = stub("\x48\x89\xf8\xff\xd1\xc3", 6);

	CHECK(vmstack_py_tramp_rules(&t) == -1);
	/* A stub that would leave the CFA below the return address. */
	t = stub("\x48\x83\xc4\x08\xc3", 5);
	CHECK(vmstack_py_tramp_rules(&t) == -1);
}

/* Copies back to back: one row where a copy's last rule and the next's first agree. */
UNIT_TEST(py_tramp_arena_rows)
{
	struct vmstack_py_tramp t = stub(STUB_312, 11);
	struct vmstack_uw_row *rows;
	size_t n, i;

	CHECK(vmstack_py_tramp_rules(&t) == 0);
	/* 3 whole copies and 5 bytes of none. */
	n = vmstack_py_tramp_arena_rows(&t, 38, 11, &rows);
	CHECK(n == 1 + 2 * 3);
	for (i = 0; i < 3; i++) {
		CHECK(row_is(&rows[1 + 2 * i], (uint32_t)(11 * i + 4), VMSTACK_UW_CFA_RSP, 16,
			     VMSTACK_UW_RBP_SAME, 0));
		CHECK(row_is(&rows[2 + 2 * i], (uint32_t)(11 * i + 10), VMSTACK_UW_CFA_RSP, 8,
			     VMSTACK_UW_RBP_SAME, 0));
	}
	free(rows);
}

/* 3.13.0 pads each copy to 16 bytes: the stride is found from the arena. */
UNIT_TEST(py_tramp_stride)
{
	struct vmstack_py_tramp t = stub(STUB_312, 11);
	unsigned char arena[64] = { 0 };
	struct vmstack_uw_row *rows;

	memcpy(arena, STUB_312, 11);
	memcpy(arena + 16, STUB_312, 11);
	CHECK(vmstack_py_tramp_stride(&t, arena, sizeof(arena)) == 16);
	memcpy(arena + 11, STUB_312, 11);
	CHECK(vmstack_py_tramp_stride(&t, arena, sizeof(arena)) == 11);
	arena[0] = 0x90;
	CHECK(vmstack_py_tramp_stride(&t, arena, sizeof(arena)) == 0);
	CHECK(vmstack_py_tramp_rules(&t) == 0);
	/* Rows at 16-byte steps: the padding keeps the rule after ret. */
	CHECK(vmstack_py_tramp_arena_rows(&t, 48, 16, &rows) == 7);
	CHECK(rows[3].start == 20 && rows[3].cfa_off == 16);
	free(rows);
}
