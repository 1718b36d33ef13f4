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

/* Row by row through libdw: each row's program run again from the FDE's start. */
int vmstack_cfi_build_libdw(Elf *elf, struct vmstack_cfi_table *t)
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

/*
 * The direct path: .eh_frame read here, each FDE's program run once, a row
 * at each advance. libdw's dwarf_cfi_addrframe runs the CIE's and FDE's
 * programs again from the start for every row and looks the FDE up each
 * time: most of the 50-70 ms vmstack-record spent on python3.11's rules
 * (host; about 20x that under TCG) before its first sample. The rules are
 * reduced as reduce() does libdw's; anything this does not know (an
 * augmentation, an opcode, an encoding) sends the file to libdw.
 */
enum { RULE_SAME, RULE_OFFSET, RULE_OTHER };
enum { CFA_REG, CFA_PLT, CFA_OTHER };

struct cfa_state {
	int cfa_kind, cfa_reg;
	int64_t cfa_off;
	int ra_kind, rbp_kind;		/* RULE_*: where RA and rbp are */
	int64_t ra_off, rbp_off;	/* RULE_OFFSET: at CFA + this */
};

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

/*
 * A LEB128 number's bits; *@shift ends past its last byte and *@last is
 * that byte (get_sleb() extends the sign from them).
 */
static uint64_t get_leb(struct cursor *c, unsigned int *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		if (c->p >= c->end || *shift > 63) {
			c->bad = 1;
			*last = 0;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

static uint64_t get_uleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;

	return get_leb(c, &shift, &last);
}

static int64_t get_sleb(struct cursor *c)
{
	unsigned int shift;
	uint8_t last;
	uint64_t v = get_leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

static uint64_t get_fixed(struct cursor *c, unsigned int n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n);	/* little-endian: x86-64 only */
	c->p += n;
	return v;
}

/* A pointer of DW_EH_PE encoding @enc, its value as stored (no base added). */
static uint64_t get_encoded(struct cursor *c, uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return get_fixed(c, 8);		/* absptr */
	case 0x01: return get_uleb(c);
	case 0x02: return get_fixed(c, 2);
	case 0x03: return get_fixed(c, 4);
	case 0x04: return get_fixed(c, 8);
	case 0x09: return (uint64_t)get_sleb(c);
	case 0x0a: return (uint64_t)(int16_t)get_fixed(c, 2);
	case 0x0b: return (uint64_t)(int32_t)get_fixed(c, 4);
	case 0x0c: return get_fixed(c, 8);
	}
	c->bad = 1;
	return 0;
}

/* A CIE as its FDEs need it. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int has_z, signal;
	struct cfa_state init;		/* after its initial instructions */
};

static void set_rule(struct cfa_state *st, uint64_t reg, int kind, int64_t off)
{
	if (reg == DW_REG_RA) {
		st->ra_kind = kind;
		st->ra_off = off;
	} else if (reg == DW_REG_RBP) {
		st->rbp_kind = kind;
		st->rbp_off = off;
	}
}

static void restore_rule(struct cfa_state *st, const struct cfa_state *init, uint64_t reg)
{
	if (reg == DW_REG_RA) {
		st->ra_kind = init->ra_kind;
		st->ra_off = init->ra_off;
	} else if (reg == DW_REG_RBP) {
		st->rbp_kind = init->rbp_kind;
		st->rbp_off = init->rbp_off;
	}
}

/* As reduce() does libdw's frame. */
static void reduce_state(const struct cfa_state *st, int signal, struct vmstack_uw_row *r)
{
	int plt = st->cfa_kind == CFA_PLT;
	int reg = plt ? DW_REG_RSP : st->cfa_reg;
	int64_t off = plt ? 8 : st->cfa_off;

	memset(r, 0, sizeof(*r));
	r->cfa = VMSTACK_UW_FP;
	if (signal) {
		r->cfa = VMSTACK_UW_SIGNAL;
		return;
	}
	if (st->cfa_kind == CFA_OTHER || (reg != DW_REG_RSP && reg != DW_REG_RBP) ||
	    off < INT32_MIN || off > INT32_MAX)
		return;
	if (!plt && (st->ra_kind != RULE_OFFSET || st->ra_off != -8))
		return;
	r->cfa = reg == DW_REG_RSP ? VMSTACK_UW_CFA_RSP : VMSTACK_UW_CFA_RBP;
	r->cfa_off = (int32_t)off;
	r->rbp = VMSTACK_UW_RBP_SAME;
	if (st->rbp_kind == RULE_OFFSET && st->rbp_off >= INT16_MIN &&
	    st->rbp_off <= INT16_MAX) {
		r->rbp = VMSTACK_UW_RBP_SAVED;
		r->rbp_off = (int16_t)st->rbp_off;
	}
}

#define MAX_REMEMBER 16

/*
 * Run the CFA program @c from @loc with state @st. With @t, a row at each
 * advance (up to @end) and at the end; without, a CIE's initial program
 * (no advances allowed). 0, or -1 for what is not known here.
 */
static int run_program(struct cursor *c, const struct cie *cie, struct cfa_state *st,
		       uint64_t loc, uint64_t end, struct vmstack_cfi_table *t)
{
	struct cfa_state stack[MAX_REMEMBER];
	struct vmstack_uw_row rule;
	unsigned int depth = 0;
	const uint8_t *block;
	uint64_t reg, delta, len;

	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++;

		delta = UINT64_MAX;
		switch (op >> 6) {
		case 1:				/* DW_CFA_advance_loc */
			delta = (op & 0x3f) * cie->code_align;
			op = 0x00;
			break;
		case 2:				/* DW_CFA_offset */
			set_rule(st, op & 0x3f, RULE_OFFSET,
				 (int64_t)get_uleb(c) * cie->data_align);
			continue;
		case 3:				/* DW_CFA_restore */
			restore_rule(st, &cie->init, op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00:			/* DW_CFA_nop */
			break;
		case 0x02:			/* DW_CFA_advance_loc1 */
			delta = get_fixed(c, 1) * cie->code_align;
			break;
		case 0x03:			/* DW_CFA_advance_loc2 */
			delta = get_fixed(c, 2) * cie->code_align;
			break;
		case 0x04:			/* DW_CFA_advance_loc4 */
			delta = get_fixed(c, 4) * cie->code_align;
			break;
		case 0x05:			/* DW_CFA_offset_extended */
			reg = get_uleb(c);
			set_rule(st, reg, RULE_OFFSET, (int64_t)get_uleb(c) * cie->data_align);
			break;
		case 0x11:			/* DW_CFA_offset_extended_sf */
			reg = get_uleb(c);
			set_rule(st, reg, RULE_OFFSET, get_sleb(c) * cie->data_align);
			break;
		case 0x06:			/* DW_CFA_restore_extended */
			restore_rule(st, &cie->init, get_uleb(c));
			break;
		case 0x07:			/* DW_CFA_undefined */
		case 0x08:			/* DW_CFA_same_value */
			reg = get_uleb(c);
			set_rule(st, reg, op == 0x08 ? RULE_SAME : RULE_OTHER, 0);
			break;
		case 0x09:			/* DW_CFA_register */
			reg = get_uleb(c);
			get_uleb(c);
			set_rule(st, reg, RULE_OTHER, 0);
			break;
		case 0x14:			/* DW_CFA_val_offset */
			reg = get_uleb(c);
			get_uleb(c);
			set_rule(st, reg, RULE_OTHER, 0);
			break;
		case 0x15:			/* DW_CFA_val_offset_sf */
			reg = get_uleb(c);
			get_sleb(c);
			set_rule(st, reg, RULE_OTHER, 0);
			break;
		case 0x0a:			/* DW_CFA_remember_state */
			if (depth == MAX_REMEMBER)
				return -1;
			stack[depth++] = *st;
			break;
		case 0x0b:			/* DW_CFA_restore_state */
			if (!depth)
				return -1;
			*st = stack[--depth];
			break;
		case 0x0c:			/* DW_CFA_def_cfa */
			st->cfa_kind = CFA_REG;
			st->cfa_reg = (int)get_uleb(c);
			st->cfa_off = (int64_t)get_uleb(c);
			break;
		case 0x12:			/* DW_CFA_def_cfa_sf */
			st->cfa_kind = CFA_REG;
			st->cfa_reg = (int)get_uleb(c);
			st->cfa_off = get_sleb(c) * cie->data_align;
			break;
		case 0x0d:			/* DW_CFA_def_cfa_register */
			if (st->cfa_kind != CFA_REG)
				return -1;
			st->cfa_reg = (int)get_uleb(c);
			break;
		case 0x0e:			/* DW_CFA_def_cfa_offset */
			if (st->cfa_kind != CFA_REG)
				return -1;
			st->cfa_off = (int64_t)get_uleb(c);
			break;
		case 0x13:			/* DW_CFA_def_cfa_offset_sf */
			if (st->cfa_kind != CFA_REG)
				return -1;
			st->cfa_off = get_sleb(c) * cie->data_align;
			break;
		case 0x0f:			/* DW_CFA_def_cfa_expression */
			len = get_uleb(c);
			if (c->bad || len > (uint64_t)(c->end - c->p))
				return -1;
			block = c->p;
			c->p += len;
			/* x86-64 PLT entries: DW_OP_breg7 8; DW_OP_breg16 ... */
			st->cfa_kind = len >= 4 && block[0] == DW_OP_breg7 && block[1] == 8 &&
				       block[2] == DW_OP_breg16 ? CFA_PLT : CFA_OTHER;
			break;
		case 0x10:			/* DW_CFA_expression */
		case 0x16:			/* DW_CFA_val_expression */
			reg = get_uleb(c);
			len = get_uleb(c);
			if (c->bad || len > (uint64_t)(c->end - c->p))
				return -1;
			c->p += len;
			set_rule(st, reg, RULE_OTHER, 0);
			break;
		case 0x2e:			/* DW_CFA_GNU_args_size */
			get_uleb(c);
			break;
		default:			/* set_loc, GNU_window_save, vendor ones */
			return -1;
		}
		if (delta == UINT64_MAX)
			continue;
		if (!t)
			return -1;
		/* A row from loc up to the advance, clipped to the FDE's end. */
		if (delta && loc < end) {
			reduce_state(st, cie->signal, &rule);
			t->fallback_rows += rule.cfa == VMSTACK_UW_FP;
			add_row(t, loc, &rule);
		}
		loc = delta > end - loc ? end : loc + delta;
	}
	if (c->bad)
		return -1;
	if (t && loc < end) {
		reduce_state(st, cie->signal, &rule);
		t->fallback_rows += rule.cfa == VMSTACK_UW_FP;
		add_row(t, loc, &rule);
	}
	return 0;
}

/* The CIE at @p (its length field) in .eh_frame [@base, @limit). */
static int parse_cie(const uint8_t *p, const uint8_t *limit, struct cie *cie)
{
	struct cursor c = { p, limit, 0 };
	uint64_t len = get_fixed(&c, 4);
	const char *aug;
	uint8_t version;

	if (len < 8 || len == 0xffffffff || len > (uint64_t)(limit - c.p))
		return -1;
	c.end = c.p + len;
	if (get_fixed(&c, 4) != 0)	/* a CIE's id is 0 in .eh_frame */
		return -1;
	version = (uint8_t)get_fixed(&c, 1);
	aug = (const char *)c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p++ >= c.end || (version != 1 && version != 3))
		return -1;
	memset(cie, 0, sizeof(*cie));
	cie->fde_enc = 0;		/* absptr */
	cie->code_align = get_uleb(&c);
	cie->data_align = get_sleb(&c);
	if (version == 1)
		get_fixed(&c, 1);
	else
		get_uleb(&c);
	if (*aug == 'z') {
		uint64_t alen = get_uleb(&c);
		const uint8_t *after;

		if (c.bad || alen > (uint64_t)(c.end - c.p))
			return -1;
		after = c.p + alen;
		cie->has_z = 1;
		for (aug++; *aug; aug++) {
			if (*aug == 'R') {
				cie->fde_enc = (uint8_t)get_fixed(&c, 1);
			} else if (*aug == 'L') {
				get_fixed(&c, 1);
			} else if (*aug == 'P') {
				uint8_t enc = (uint8_t)get_fixed(&c, 1);

				get_encoded(&c, enc);
			} else if (*aug == 'S') {
				cie->signal = 1;
			} else {
				return -1;
			}
		}
		c.p = after;
	} else if (*aug) {
		return -1;
	}
	if (c.bad || cie->fde_enc == 0xff)
		return -1;
	/* The ABI's start (libdw's for x86-64): CFA rsp + 8, RA at CFA - 8. */
	cie->init = (struct cfa_state){ .cfa_kind = CFA_REG, .cfa_reg = DW_REG_RSP,
					.cfa_off = 8, .ra_kind = RULE_OFFSET, .ra_off = -8 };
	return run_program(&c, cie, &cie->init, 0, 0, NULL);
}

/* File bytes of the link-time range [@vaddr, +@len) through the load segments. */
static const uint8_t *vaddr_bytes(Elf *elf, const uint8_t *file, size_t size,
				  uint64_t vaddr, uint64_t *avail)
{
	size_t i, nphdr;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nphdr))
		return NULL;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz &&
		    ph.p_offset + ph.p_filesz <= size) {
			*avail = ph.p_filesz - (vaddr - ph.p_vaddr);
			return file + ph.p_offset + (vaddr - ph.p_vaddr);
		}
	return NULL;
}

int vmstack_cfi_build_direct(Elf *elf, struct vmstack_cfi_table *t)
{
	struct vmstack_uw_row fp = { .cfa = VMSTACK_UW_FP };
	const uint8_t *file, *hdr, *fde;
	uint64_t hdr_vaddr, avail, cie_at = UINT64_MAX;
	size_t i, n, size, nphdr;
	struct cie cie;
	GElf_Phdr ph;
	int32_t cnt;

	memset(t, 0, sizeof(*t));
	file = (const uint8_t *)elf_rawfile(elf, &size);
	if (!file || elf_getphdrnum(elf, &nphdr))
		return -1;
	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_GNU_EH_FRAME)
			break;
	if (i == nphdr || ph.p_offset + 12 > size)
		return -1;
	hdr = file + ph.p_offset;
	hdr_vaddr = ph.p_vaddr;
	if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b || (hdr[1] & 0x0f) != 0x0b)
		return -1;
	memcpy(&cnt, hdr + 8, 4);
	if (cnt <= 0 || ph.p_offset + 12 + (uint64_t)cnt * 8 > size)
		return -1;
	n = (size_t)cnt;
	for (i = 0; i < n; i++) {
		int32_t rel_start, rel_fde, rel_next, cie_ptr;
		uint64_t start, next, range, fde_vaddr, this_cie, len;
		struct cfa_state st;
		struct cursor c;

		memcpy(&rel_start, hdr + 12 + 8 * i, 4);
		memcpy(&rel_fde, hdr + 16 + 8 * i, 4);
		start = hdr_vaddr + (int64_t)rel_start;
		next = UINT64_MAX;
		if (i + 1 < n) {
			memcpy(&rel_next, hdr + 12 + 8 * (i + 1), 4);
			next = hdr_vaddr + (int64_t)rel_next;
		}
		fde_vaddr = hdr_vaddr + (int64_t)rel_fde;
		fde = vaddr_bytes(elf, file, size, fde_vaddr, &avail);
		if (!fde || avail < 8)
			goto fail;
		c = (struct cursor){ fde, fde + avail, 0 };
		len = get_fixed(&c, 4);
		/* At least the CIE pointer and a 4-byte pc_begin. */
		if (len < 8 || len == 0xffffffff || len > avail - 4)
			goto fail;
		c.end = c.p + len;
		memcpy(&cie_ptr, c.p, 4);
		/* CIE pointer: back from this field to the CIE. */
		this_cie = fde_vaddr + 4 - (uint64_t)(int64_t)cie_ptr;
		c.p += 4;
		if (cie_ptr <= 0)
			goto fail;
		if (this_cie != cie_at) {
			const uint8_t *cp = vaddr_bytes(elf, file, size, this_cie, &avail);

			if (!cp || parse_cie(cp, cp + avail, &cie))
				goto fail;
			cie_at = this_cie;
		}
		get_encoded(&c, cie.fde_enc);		/* pc_begin: the table's */
		range = get_encoded(&c, cie.fde_enc & 0x0f);
		if (cie.has_z) {
			uint64_t alen = get_uleb(&c);

			if (c.bad || alen > (uint64_t)(c.end - c.p))
				goto fail;
			c.p += alen;
		}
		if (c.bad)
			goto fail;
		t->fdes++;
		/* An FDE that runs into the next ends there; an empty one has no rows. */
		if (!range)
			continue;
		if (range > next - start)
			range = next - start;
		st = cie.init;
		if (run_program(&c, &cie, &st, start, start + range, t))
			goto fail;
		/* A gap up to the next FDE: no rule there. */
		if (start + range < next)
			add_row(t, start + range, &fp);
	}
	return 0;
fail:
	vmstack_cfi_free(t);
	return -1;
}

int vmstack_cfi_build(Elf *elf, struct vmstack_cfi_table *t)
{
	return vmstack_cfi_build_direct(elf, t) ? vmstack_cfi_build_libdw(elf, t) : 0;
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
