// SPDX-License-Identifier: GPL-2.0
/*
 * The fallback path: rows through libdw, for files whose .eh_frame uses a
 * form eh_frame.c does not read. Each row's program runs again from the
 * FDE's start (dwarf_cfi_addrframe), so it is the slow path; it fills the
 * same frame state as the direct one, row for row.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "unwind/eh_frame_hdr.h"
#include "unwind/frame_state.h"

/* "offset(N)": the value lives at CFA + N. */
static int cfa_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 0;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 0;
	}
	return -1;
}

/* The x86-64 PLT entries' CFA expression (see frame_state.h's CFA_PLT). */
static int is_plt_expression(const Dwarf_Op *ops, size_t nops)
{
	return nops >= 2 && ops[0].atom == DW_OP_breg7 && ops[0].number == 8 &&
	       ops[1].atom == DW_OP_breg16;
}

static enum saved_at register_saved_at(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	*off = 0;
	if (dwarf_frame_register(f, reg, mem, &ops, &nops))
		return SAVED_ELSEWHERE;
	if (!nops)		/* same value; undefined has no ops at all */
		return ops ? SAVED_SAME : SAVED_ELSEWHERE;
	return cfa_offset(ops, nops, off) ? SAVED_ELSEWHERE : SAVED_AT_CFA;
}

static void frame_to_state(Dwarf_Frame *f, int signal, struct frame_state *st)
{
	Dwarf_Op *ops;
	size_t nops;

	memset(st, 0, sizeof(*st));
	st->signal = signal;
	st->cfa = CFA_EXPRESSION;
	if (!dwarf_frame_cfa(f, &ops, &nops) && nops) {
		if (nops == 1 && ops[0].atom == DW_OP_bregx) {
			st->cfa = CFA_REG;
			st->cfa_reg = (int)ops[0].number;
			st->cfa_off = (int64_t)ops[0].number2;
		} else if (nops == 1 && ops[0].atom >= DW_OP_breg0 &&
			   ops[0].atom <= DW_OP_breg31) {
			st->cfa = CFA_REG;
			st->cfa_reg = ops[0].atom - DW_OP_breg0;
			st->cfa_off = (int64_t)ops[0].number;
		} else if (is_plt_expression(ops, nops)) {
			st->cfa = CFA_PLT;
		}
	}
	st->ra = register_saved_at(f, DW_REG_RA, &st->ra_off);
	st->rbp = register_saved_at(f, DW_REG_RBP, &st->rbp_off);
}

/* Row by row through libdw: each row's program run again from the FDE's start. */
int vmstack_cfi_build_libdw(Elf *elf, struct vmstack_cfi_table *t)
{
	struct eh_frame_hdr h;
	struct frame_state st;
	uint64_t addr, end;
	Dwarf_CFI *cfi;
	size_t i;

	memset(t, 0, sizeof(*t));
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi || eh_frame_hdr_find(elf, &h)) {
		if (cfi)
			dwarf_cfi_end(cfi);
		return -1;
	}
	for (i = 0; i < h.n; i++) {
		uint64_t first = eh_frame_hdr_start(&h, i);
		uint64_t next = i + 1 < h.n ? eh_frame_hdr_start(&h, i + 1) : UINT64_MAX;
		Dwarf_Frame *f;
		Dwarf_Addr s, e;
		bool signal;

		t->fdes++;
		for (addr = first, end = addr; addr < next; addr = end) {
			if (dwarf_cfi_addrframe(cfi, addr, &f))
				break;
			if (dwarf_frame_info(f, &s, &e, &signal) < 0 || e <= addr) {
				free(f);
				break;
			}
			frame_to_state(f, signal, &st);
			cfi_table_add_state(t, addr, &st);
			end = e;
			free(f);
		}
		/* A gap up to the next FDE: no rule there. */
		if (addr > first && addr < next)
			cfi_table_add_gap(t, addr);
	}
	dwarf_cfi_end(cfi);
	return 0;
}

int vmstack_cfi_fde_range(Elf *elf, uint64_t addr, uint64_t *start, uint64_t *end)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	struct eh_frame_hdr h;
	uint64_t a;
	size_t i;

	if (!cfi || eh_frame_hdr_find(elf, &h)) {
		if (cfi)
			dwarf_cfi_end(cfi);
		return -1;
	}
	for (i = h.n; i-- && eh_frame_hdr_start(&h, i) > addr;)
		;
	/* Row by row to the FDE's end: libdw gives one row's range at a time. */
	for (a = i < h.n ? eh_frame_hdr_start(&h, i) : UINT64_MAX; a != UINT64_MAX;) {
		Dwarf_Frame *f;
		Dwarf_Addr s, e;
		bool signal;

		if ((i + 1 < h.n && a >= eh_frame_hdr_start(&h, i + 1)) ||
		    dwarf_cfi_addrframe(cfi, a, &f))
			break;
		if (dwarf_frame_info(f, &s, &e, &signal) < 0 || e <= a) {
			free(f);
			break;
		}
		free(f);
		a = e;
	}
	dwarf_cfi_end(cfi);
	if (i < h.n && a > addr) {
		*start = eh_frame_hdr_start(&h, i);
		*end = a;
		return 0;
	}
	return -1;
}
