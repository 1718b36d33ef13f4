// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "util.h"

#define DW_REG_RBP 6
#define DW_REG_RSP 7
#define DW_REG_RA 16

static void add_row(struct vmstack_cfi_table *t, uint64_t vaddr,
		    const struct vmstack_uw_row *rule)
{
	struct vmstack_cfi_row *last = t->n ? &t->rows[t->n - 1] : NULL;

	/* Adjacent identical rules merge into one row. */
	if (last && last->rule.cfa == rule->cfa &&
	    last->rule.cfa_off == rule->cfa_off && last->rule.rbp == rule->rbp &&
	    last->rule.rbp_off == rule->rbp_off)
		return;
	if (last && last->vaddr == vaddr) {
		last->rule = *rule;
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	t->rows[t->n].vaddr = vaddr;
	t->rows[t->n].rule = *rule;
	t->n++;
}

/* "offset(N)": the value lives at CFA + N. */
static int cfa_offset(Dwarf_Op *ops, size_t nops, int64_t *off)
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

/*
 * The CFA expression of x86-64 PLT entries: rsp + 8, plus 8 once the
 * entry's push has run. The first instructions (rsp + 8) are where a
 * sample lands; the exact rule is not worth an expression evaluator.
 */
static int is_plt_expression(Dwarf_Op *ops, size_t nops)
{
	return nops >= 2 && ops[0].atom == DW_OP_breg7 && ops[0].number == 8 &&
	       ops[1].atom == DW_OP_breg16;
}

static void reduce(Dwarf_Frame *f, struct vmstack_uw_row *r, int signal)
{
	Dwarf_Op mem[3], *ops;
	int64_t off, ra_off;
	int reg, plt = 0;
	size_t nops;

	memset(r, 0, sizeof(*r));
	r->cfa = VMSTACK_UW_FP;
	if (signal) {
		r->cfa = VMSTACK_UW_SIGNAL;
		return;
	}
	if (dwarf_frame_cfa(f, &ops, &nops) || !nops)
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (nops == 1 && ops[0].atom >= DW_OP_breg0 &&
		   ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else if (is_plt_expression(ops, nops)) {
		reg = DW_REG_RSP;
		off = 8;
		plt = 1;
	} else {
		return;		/* an expression: DRAP realignment and the like */
	}
	if ((reg != DW_REG_RSP && reg != DW_REG_RBP) || off < INT32_MIN ||
	    off > INT32_MAX)
		return;
	if (!plt && (dwarf_frame_register(f, DW_REG_RA, mem, &ops, &nops) ||
		     cfa_offset(ops, nops, &ra_off) || ra_off != -8))
		return;
	r->cfa = reg == DW_REG_RSP ? VMSTACK_UW_CFA_RSP : VMSTACK_UW_CFA_RBP;
	r->cfa_off = (int32_t)off;
	/* rbp is callee-saved: a rule that does not say where it is, keeps it. */
	r->rbp = VMSTACK_UW_RBP_SAME;
	if (!dwarf_frame_register(f, DW_REG_RBP, mem, &ops, &nops) &&
	    !cfa_offset(ops, nops, &off) && off >= INT16_MIN && off <= INT16_MAX) {
		r->rbp = VMSTACK_UW_RBP_SAVED;
		r->rbp_off = (int16_t)off;
	}
}

/* FDE start addresses from .eh_frame_hdr's sorted search table. */
static uint64_t *fde_starts(Elf *elf, size_t *n)
{
	size_t i, nphdr, size;
	const uint8_t *file, *hdr;
	uint64_t *starts;
	GElf_Phdr ph;
	int32_t cnt;

	*n = 0;
	file = (const uint8_t *)elf_rawfile(elf, &size);
	if (!file || elf_getphdrnum(elf, &nphdr))
		return NULL;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == nphdr || ph.p_offset + 12 > size)
		return NULL;
	hdr = file + ph.p_offset;
	/* version 1; eh_frame_ptr pcrel|sdata4, count udata4, table datarel|sdata4 */
	if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b ||
	    (hdr[1] & 0x0f) != 0x0b)
		return NULL;
	memcpy(&cnt, hdr + 8, 4);
	if (cnt <= 0 || ph.p_offset + 12 + (uint64_t)cnt * 8 > size)
		return NULL;
	starts = xmalloc((size_t)cnt * sizeof(*starts));
	for (i = 0; i < (size_t)cnt; i++) {
		int32_t rel;

		memcpy(&rel, hdr + 12 + 8 * i, 4);
		starts[i] = ph.p_vaddr + (int64_t)rel;
	}
	*n = (size_t)cnt;
	return starts;
}

int vmstack_cfi_build(Elf *elf, struct vmstack_cfi_table *t)
{
	struct vmstack_uw_row rule, fp = { .cfa = VMSTACK_UW_FP };
	Dwarf_CFI *cfi;
	uint64_t *starts, addr, end;
	size_t i, n;

	memset(t, 0, sizeof(*t));
	cfi = dwarf_getcfi_elf(elf);
	starts = cfi ? fde_starts(elf, &n) : NULL;
	if (!starts) {
		if (cfi)
			dwarf_cfi_end(cfi);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? starts[i + 1] : UINT64_MAX;
		Dwarf_Frame *f;
		Dwarf_Addr s, e;
		bool signal;

		t->fdes++;
		for (addr = starts[i], end = addr; addr < next; addr = end) {
			if (dwarf_cfi_addrframe(cfi, addr, &f))
				break;
			if (dwarf_frame_info(f, &s, &e, &signal) < 0 || e <= addr) {
				free(f);
				break;
			}
			reduce(f, &rule, signal);
			t->fallback_rows += rule.cfa == VMSTACK_UW_FP;
			add_row(t, addr, &rule);
			end = e;
			free(f);
		}
		/* A gap up to the next FDE: no rule there. */
		if (addr > starts[i] && addr < next)
			add_row(t, addr, &fp);
	}
	free(starts);
	dwarf_cfi_end(cfi);
	return 0;
}

int vmstack_cfi_fde_range(Elf *elf, uint64_t addr, uint64_t *start, uint64_t *end)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	uint64_t *starts, a;
	size_t i, n;
	int ret = -1;

	starts = cfi ? fde_starts(elf, &n) : NULL;
	if (!starts) {
		if (cfi)
			dwarf_cfi_end(cfi);
		return -1;
	}
	for (i = n; i-- && starts[i] > addr;)
		;
	/* Row by row to the FDE's end: libdw gives one row's range at a time. */
	for (a = i < n ? starts[i] : UINT64_MAX; a != UINT64_MAX;) {
		Dwarf_Frame *f;
		Dwarf_Addr s, e;
		bool signal;

		if ((i + 1 < n && a >= starts[i + 1]) || dwarf_cfi_addrframe(cfi, a, &f))
			break;
		if (dwarf_frame_info(f, &s, &e, &signal) < 0 || e <= a) {
			free(f);
			break;
		}
		free(f);
		a = e;
	}
	if (i < n && a > addr) {
		*start = starts[i];
		*end = a;
		ret = 0;
	}
	free(starts);
	dwarf_cfi_end(cfi);
	return ret;
}

size_t vmstack_cfi_slice(const struct vmstack_cfi_table *t, uint64_t lo,
			 uint64_t hi, struct vmstack_uw_row **out)
{
	struct vmstack_uw_row fp = { .cfa = VMSTACK_UW_FP };
	size_t i = 0, k = 0;

	*out = xmalloc((t->n + 1) * sizeof(**out));
	/* The row in force at lo starts the slice, at offset 0. */
	while (i + 1 < t->n && t->rows[i + 1].vaddr <= lo)
		i++;
	if (!t->n || t->rows[i].vaddr > lo)
		(*out)[k++] = fp;
	for (; i < t->n && t->rows[i].vaddr < hi; i++) {
		(*out)[k] = t->rows[i].rule;
		(*out)[k].start = t->rows[i].vaddr > lo ?
				  (uint32_t)(t->rows[i].vaddr - lo) : 0;
		if (k && (*out)[k].start == (*out)[k - 1].start)
			(*out)[k - 1] = (*out)[k];
		else
			k++;
	}
	return k;
}

void vmstack_cfi_free(struct vmstack_cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
