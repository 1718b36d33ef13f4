// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's perf trampolines given unwind rules (py_trampolines.h). The
 * stub is copied verbatim over a whole arena (3.12.1 and 3.13.0: 11
 * bytes, "sub $8,%rsp; call *%rcx; add $8,%rsp; ret", in 64 KiB arenas,
 * one every 11 bytes in 3.12.1 and every 16 in 3.13.0); later builds push
 * a frame pointer. Its rules
 * come from simulating what each of its instructions does to the stack,
 * for the few instructions such a stub is made of: any other makes it a
 * stub not understood, said once, and left without rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "unwind/py_trampolines.h"
#include "util.h"

/* Where the caller's frame is, as one instruction leaves it. */
struct stub_state {
	uint8_t cfa;		/* VMSTACK_UW_CFA_RSP or _RBP */
	int32_t cfa_off;
	uint8_t rbp;		/* VMSTACK_UW_RBP_SAME or _SAVED */
	int16_t rbp_off;
};

static void add_row(struct vmstack_py_tramp *t, uint32_t at, const struct stub_state *s)
{
	struct vmstack_uw_row r = { .start = at, .cfa_off = s->cfa_off, .rbp_off = s->rbp_off,
				    .cfa = s->cfa, .rbp = s->rbp };
	struct vmstack_uw_row *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;

	if (last && last->cfa == r.cfa && last->cfa_off == r.cfa_off &&
	    last->rbp == r.rbp && last->rbp_off == r.rbp_off)
		return;
	t->rows[t->nrows++] = r;
}

int vmstack_py_tramp_rules(struct vmstack_py_tramp *t)
{
	struct stub_state s = { VMSTACK_UW_CFA_RSP, 8, VMSTACK_UW_RBP_SAME, 0 };
	const unsigned char *c = t->code;
	size_t at = 0, len;

	t->nrows = 0;
	while (at < t->size) {
		const unsigned char *i = c + at;
		size_t left = t->size - at;

		add_row(t, (uint32_t)at, &s);
		if (left >= 4 && !memcmp(i, "\xf3\x0f\x1e\xfa", 4)) {		/* endbr64 */
			len = 4;
		} else if (i[0] == 0x55) {				/* push %rbp */
			len = 1;
			if (s.cfa == VMSTACK_UW_CFA_RSP)
				s.cfa_off += 8;
			s.rbp = VMSTACK_UW_RBP_SAVED;
			s.rbp_off = -16;
		} else if (left >= 3 && !memcmp(i, "\x48\x89\xe5", 3)) {	/* mov %rsp,%rbp */
			len = 3;
			if (s.cfa != VMSTACK_UW_CFA_RSP)
				return -1;
			s.cfa = VMSTACK_UW_CFA_RBP;
		} else if (left >= 4 && i[0] == 0x48 && i[1] == 0x83 &&
			   (i[2] == 0xec || i[2] == 0xc4)) {		/* sub/add $imm8,%rsp */
			len = 4;
			if (s.cfa == VMSTACK_UW_CFA_RSP)
				s.cfa_off += i[2] == 0xec ? (int8_t)i[3] : -(int8_t)i[3];
		} else if (left >= 2 && i[0] == 0xff && (i[1] & 0xf8) == 0xd0) {	/* call *%reg */
			len = 2;
		} else if (i[0] == 0x5d || i[0] == 0xc9) {		/* pop %rbp; leave */
			len = 1;
			/* After either, rbp is the caller's again; from rbp, the CFA is just above. */
			if (i[0] == 0x5d && s.cfa == VMSTACK_UW_CFA_RSP)
				s.cfa_off -= 8;
			else
				s.cfa_off = 8;
			s.cfa = VMSTACK_UW_CFA_RSP;
			s.rbp = VMSTACK_UW_RBP_SAME;
			s.rbp_off = 0;
		} else if (i[0] == 0xc3) {				/* ret */
			len = 1;
		} else {
			return -1;
		}
		if (s.cfa == VMSTACK_UW_CFA_RSP && s.cfa_off < 8)
			return -1;
		at += len;
	}
	return t->nrows ? 0 : -1;
}

enum vmstack_py_tramp_found vmstack_py_tramp_read(Elf *elf, struct vmstack_py_tramp *t)
{
	GElf_Sym start, end;

	memset(t, 0, sizeof(*t));
	if (vmstack_elf_symbol(elf, "_Py_trampoline_func_start", &start) ||
	    vmstack_elf_symbol(elf, "_Py_trampoline_func_end", &end))
		return PY_TRAMP_NONE;
	if (end.st_value <= start.st_value ||
	    end.st_value - start.st_value > PY_TRAMP_MAX_BYTES)
		return PY_TRAMP_UNKNOWN;
	t->size = end.st_value - start.st_value;
	if (vmstack_elf_read(elf, start.st_value, t->code, t->size) ||
	    vmstack_py_tramp_rules(t))
		return PY_TRAMP_UNKNOWN;
	return PY_TRAMP_KNOWN;
}

size_t vmstack_py_tramp_stride(const struct vmstack_py_tramp *t, const unsigned char *buf,
			       size_t len)
{
	size_t s;

	if (len < t->size || memcmp(buf, t->code, t->size))
		return 0;
	/* Copies are aligned at most to their own size rounded up to 64. */
	for (s = t->size; s <= PY_TRAMP_MAX_BYTES && s + t->size <= len; s++)
		if (!memcmp(buf + s, t->code, t->size))
			return s;
	return 0;
}

size_t vmstack_py_tramp_arena_rows(const struct vmstack_py_tramp *t, uint64_t len,
				   size_t stride, struct vmstack_uw_row **rows)
{
	size_t copies = len / stride, n = 0, k, j;
	struct vmstack_uw_row *v = xcalloc(copies * t->nrows + 1, sizeof(*v));

	for (k = 0; k < copies; k++)
		for (j = 0; j < t->nrows; j++) {
			struct vmstack_uw_row r = t->rows[j];

			r.start += (uint32_t)(k * stride);
			/* A copy's last rule and the next one's first are often one. */
			if (n && v[n - 1].cfa == r.cfa && v[n - 1].cfa_off == r.cfa_off &&
			    v[n - 1].rbp == r.rbp && v[n - 1].rbp_off == r.rbp_off)
				continue;
			v[n++] = r;
		}
	*rows = v;
	return n;
}
