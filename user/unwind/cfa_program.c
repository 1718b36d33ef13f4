// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>

#include "unwind/cfa_program.h"

/* Only the return address and rbp matter to the module's rules. */
static void set_rule(struct frame_state *st, uint64_t reg, enum saved_at at, int64_t off)
{
	if (reg == DW_REG_RA) {
		st->ra = at;
		st->ra_off = off;
	} else if (reg == DW_REG_RBP) {
		st->rbp = at;
		st->rbp_off = off;
	}
}

static void restore_rule(struct frame_state *st, const struct frame_state *init,
			 uint64_t reg)
{
	if (reg == DW_REG_RA) {
		st->ra = init->ra;
		st->ra_off = init->ra_off;
	} else if (reg == DW_REG_RBP) {
		st->rbp = init->rbp;
		st->rbp_off = init->rbp_off;
	}
}

#define MAX_REMEMBER 16

int cfa_program_run(struct cursor *c, const struct cie *cie, struct frame_state *st,
		    uint64_t loc, uint64_t end, struct vmstack_cfi_table *t)
{
	struct frame_state stack[MAX_REMEMBER];
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
			set_rule(st, op & 0x3f, SAVED_AT_CFA,
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
			set_rule(st, reg, SAVED_AT_CFA, (int64_t)get_uleb(c) * cie->data_align);
			break;
		case 0x11:			/* DW_CFA_offset_extended_sf */
			reg = get_uleb(c);
			set_rule(st, reg, SAVED_AT_CFA, get_sleb(c) * cie->data_align);
			break;
		case 0x06:			/* DW_CFA_restore_extended */
			restore_rule(st, &cie->init, get_uleb(c));
			break;
		case 0x07:			/* DW_CFA_undefined */
		case 0x08:			/* DW_CFA_same_value */
			reg = get_uleb(c);
			set_rule(st, reg, op == 0x08 ? SAVED_SAME : SAVED_ELSEWHERE, 0);
			break;
		case 0x09:			/* DW_CFA_register */
			reg = get_uleb(c);
			get_uleb(c);
			set_rule(st, reg, SAVED_ELSEWHERE, 0);
			break;
		case 0x14:			/* DW_CFA_val_offset */
			reg = get_uleb(c);
			get_uleb(c);
			set_rule(st, reg, SAVED_ELSEWHERE, 0);
			break;
		case 0x15:			/* DW_CFA_val_offset_sf */
			reg = get_uleb(c);
			get_sleb(c);
			set_rule(st, reg, SAVED_ELSEWHERE, 0);
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
			st->cfa = CFA_REG;
			st->cfa_reg = (int)get_uleb(c);
			st->cfa_off = (int64_t)get_uleb(c);
			break;
		case 0x12:			/* DW_CFA_def_cfa_sf */
			st->cfa = CFA_REG;
			st->cfa_reg = (int)get_uleb(c);
			st->cfa_off = get_sleb(c) * cie->data_align;
			break;
		case 0x0d:			/* DW_CFA_def_cfa_register */
			if (st->cfa != CFA_REG)
				return -1;
			st->cfa_reg = (int)get_uleb(c);
			break;
		case 0x0e:			/* DW_CFA_def_cfa_offset */
			if (st->cfa != CFA_REG)
				return -1;
			st->cfa_off = (int64_t)get_uleb(c);
			break;
		case 0x13:			/* DW_CFA_def_cfa_offset_sf */
			if (st->cfa != CFA_REG)
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
			st->cfa = len >= 4 && block[0] == DW_OP_breg7 && block[1] == 8 &&
				  block[2] == DW_OP_breg16 ? CFA_PLT : CFA_EXPRESSION;
			break;
		case 0x10:			/* DW_CFA_expression */
		case 0x16:			/* DW_CFA_val_expression */
			reg = get_uleb(c);
			len = get_uleb(c);
			if (c->bad || len > (uint64_t)(c->end - c->p))
				return -1;
			c->p += len;
			set_rule(st, reg, SAVED_ELSEWHERE, 0);
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
		if (delta && loc < end)
			cfi_table_add_state(t, loc, st);
		loc = delta > end - loc ? end : loc + delta;
	}
	if (c->bad)
		return -1;
	if (t && loc < end)
		cfi_table_add_state(t, loc, st);
	return 0;
}
