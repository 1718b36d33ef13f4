// SPDX-License-Identifier: GPL-2.0
/*
 * The frame an ABI 3 descriptor's program shows (desc3_walk.h): ABI
 * 3.6's vmstack_vm_show (vm_frame.c) as instructions, its reads in 3.6's
 * order. A script function's frame falls through; what is rare (a frame
 * caught changing, a builtin, a PC not in its function) is in
 * desc3_show_out(), after the loop.
 */
#include "vm/desc3_walk.h"

/* F_FUNC_CHECK with the kind the byte after the type: one u16 read (as 3.6 reads them). */
static bool kind_with_type(const struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;

	return (d->flags & VMSTACK_VM_F_FUNC_CHECK) &&
	       !(d->flags & (VMSTACK_VM_F_KIND_WORD | VMSTACK_VM_F_FUNC_SLOT)) &&
	       d->kind_off == d->func_check_off + 1;
}

/* R_A &= func_mask: by R_MASK where no imm holds it and the loop keeps it there. */
static void func_mask(struct desc3_tr *t)
{
	uint64_t m = t->d->func_mask;

	if (t->spare && m != ~0ULL && (int64_t)m != (int32_t)m)
		vm_prog_alu(&t->p, VMSTACK_VM4_AND, R_A, R_MASK);
	else
		vm_prog_and64(&t->p, R_A, m, R_C);
}

/*
 * F_PC_CHECK with a PC from a register or a link: the identity (code
 * start, R_B) read as 3.6's vmstack_vm_pc_in() reads it, the PC in the
 * code (on to w->ident) or else to w->pc_bad.
 */
static void pc_in(struct desc3_tr *t, const struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	int64_t size_off = (int64_t)d->ident_adj + d->pc_size_off;

	desc3_ref(t, R_B, R_A, d->ident_off, w->read);
	if (size_off == (int32_t)size_off) {
		vm_prog_ld(p, 4, 0, R_C, R_B, (int32_t)size_off, w->read);
	} else {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_C, R_B);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_C, d->ident_adj);
		vm_prog_ld(p, 4, 0, R_C, R_C, d->pc_size_off, w->read);
	}
	/* code < pc <= code + units * pc_unit */
	vm_prog_jmp(p, VMSTACK_VM4_JLE, R_PC, R_B, w->pc_bad);
	vm_prog_alu_k(p, VMSTACK_VM4_MUL_K, R_C, d->pc_unit);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_PC);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
	vm_prog_jmp(p, VMSTACK_VM4_JGT, R_A, R_C, w->pc_bad);
}

/*
 * The kind of the function in R_A (R_B: where it is) and, F_FUNC_CHECK,
 * its type: on to a script's code, else to w->not_script with the kind
 * in R_B, or to w->not_func.
 */
static void kind(struct desc3_tr *t, struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	int32_t off = d->func_check_off;
	vm_label kind_read = vm_prog_label(p), one = vm_prog_label(p);

	if (kind_with_type(t)) {
		/* Little-endian: the type the low byte, the kind the high one. */
		vm_prog_ld(p, 2, 0, R_C, R_A, off, w->read);
		w->two = true;
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C,
			      d->func_check_val | (int32_t)d->kind_script << 8, w->two_slow);
		vm_prog_bind(p, kind_read);
		vm_prog_bind(p, one);
		return;
	}
	if ((d->flags & VMSTACK_VM_F_FUNC_CHECK) && (d->flags & VMSTACK_VM_F_FUNC_SLOT) &&
	    !(d->flags & VMSTACK_VM_F_KIND_WORD)) {
		/* The kind's address is the slot's: is it the next byte? */
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_C, R_A);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_C, off + 1);
		vm_prog_jmp(p, VMSTACK_VM4_JNE, R_C, R_B, one);
		vm_prog_ld(p, 2, 0, R_C, R_A, off, w->read);
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_C);
		vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, 8);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_C, 0xff);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->func_check_val, w->not_func);
		vm_prog_ja(p, kind_read);
	}
	vm_prog_bind(p, one);
	if (d->flags & VMSTACK_VM_F_FUNC_CHECK) {
		vm_prog_ld(p, 1, 0, R_C, R_A, off, w->read);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->func_check_val, w->not_func);
	}
	if (d->flags & VMSTACK_VM_F_KIND_WORD) {
		vm_prog_ld(p, 8, 0, R_B, R_B, 0, w->read);
		vm_prog_jmp64(p, VMSTACK_VM4_JNE_K, R_B, d->kind_word, R_C, w->not_script);
	} else {
		vm_prog_ld(p, 1, 0, R_B, R_B, 0, w->read);
	}
	vm_prog_bind(p, kind_read);
	if (!(d->flags & VMSTACK_VM_F_KIND_WORD))
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_B, d->kind_script, w->not_script);
}

void desc3_show(struct desc3_tr *t, struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label l, emit, link = vm_prog_label(p);
	bool link_way;

	/* R_A: the function; R_B: where its kind is (not needed when read with its type). */
	desc3_ref(t, R_A, R_FRAME, d->func_off, w->read);
	if (d->flags & VMSTACK_VM_F_FUNC_SLOT) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->kind_off);
		desc3_ref(t, R_A, R_A, 0, w->read);
		func_mask(t);
	} else {
		func_mask(t);
		if (!kind_with_type(t)) {
			vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
			vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->kind_off);
		}
	}
	/* The state's own frame (a VM's base frame) is not shown. */
	if (d->state_from != VMSTACK_VM_STATE_NONE || (d->flags & VMSTACK_VM_F_JIT)) {
		l = vm_prog_label(p);
		vm_prog_jmp(p, VMSTACK_VM4_JNE, R_A, R_STATE, l);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_STATE, 0, w->shown);
		vm_prog_bind(p, l);
	}
	/*
	 * A return PC (a frame below the top) has its own way, the kind
	 * then the PC's check: one test where both are short.
	 */
	link_way = desc3_pc_check(t) && kind_with_type(t) && !(d->flags & VMSTACK_VM_F_FUNC_IDENT);
	if (link_way)
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_LINK, link);
	/* pc_reg is the frame's own link: being entered or left (out of the loop). */
	if (desc3_pc_check(t)) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_REG, w->from_reg);
		vm_prog_bind(p, w->from_reg_back);
	}
	kind(t, w);

	/* A script function: its identity in R_B. */
	if (d->flags & VMSTACK_VM_F_FUNC_IDENT) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
	} else if (desc3_pc_check(t)) {
		l = vm_prog_label(p);
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM, l);
		desc3_ref(t, R_B, R_A, d->ident_off, w->read);
		vm_prog_ja(p, w->ident);
		if (link_way) {
			vm_prog_bind(p, link);
			kind(t, w);
		}
		vm_prog_bind(p, l);
		pc_in(t, w);
	} else {
		desc3_ref(t, R_B, R_A, d->ident_off, w->read);
	}
	vm_prog_bind(p, w->ident);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->ident_adj);
	if (d->flags & VMSTACK_VM_F_IDENT_CHECK) {
		vm_prog_ld(p, 1, 0, R_C, R_B, d->ident_check_off, w->frame);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->ident_check_val, w->frame);
	}
	if (d->flags & VMSTACK_VM_F_IDENT_TAG) {
		/* The word keeps the value's 57 bits: of the u16's, the low 10. */
		vm_prog_ld(p, 2, 0, R_C, R_B, d->ident_tag_off, w->read);
		vm_prog_alu_k(p, VMSTACK_VM4_LSH_K, R_C, VMSTACK_VM_IDENT_TAG_SHIFT);
		vm_prog_alu(p, VMSTACK_VM4_OR, R_B, R_C);
	}
	if (d->flags & VMSTACK_VM_F_FRAME_PC) {
		/* Unreadable: shown without a PC (R_PC stays 0), out of the loop. */
		emit = vm_prog_label(p);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_PC, 0, emit);
		vm_prog_ld(p, 8, 0, R_PC, R_FRAME, d->frame_pc_off, w->pc_unread);
		vm_prog_bind(p, emit);
	}
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, R_B, R_PC, 0);
}

/*
 * An unverified top frame (3.6: *unv set): its word, on by its link (at
 * w->shown: B_TOP is clear as a shown frame leaves it); below the top, CHECK.
 */
static void unverified(struct desc3_tr *t, vm_label at, int why, const struct walk *w)
{
	vm_label top = vm_prog_label(&t->p);

	vm_prog_bind(&t->p, at);
	vm_prog_jmp_k(&t->p, VMSTACK_VM4_JSET_K, R_BITS, B_TOP, top);
	vm_prog_ja(&t->p, w->check);
	vm_prog_bind(&t->p, top);
	vm_prog_alu_k(&t->p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
	vm_prog_insn(&t->p, VMSTACK_VM4_EMIT_UNVERIFIED, 0, 0, why);
	vm_prog_ja(&t->p, w->shown);
}

void desc3_show_out(struct desc3_tr *t, const struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	bool fcheck = d->flags & VMSTACK_VM_F_FUNC_CHECK;
	vm_label reg;

	if (desc3_pc_check(t)) {
		vm_prog_bind(p, w->from_reg);
		vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_PC, R_LINK, w->edge);
		vm_prog_ja(p, w->from_reg_back);
		/* A PC not in the function: the register's is not shown; a link's cuts. */
		reg = vm_prog_label(p);
		vm_prog_bind(p, w->pc_bad);
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_REG, reg);
		vm_prog_ja(p, w->check);
		vm_prog_bind(p, reg);
		desc3_mov_k(t, R_PC, 0);
		vm_prog_ja(p, w->ident);
	}
	if (d->flags & VMSTACK_VM_F_FRAME_PC) {
		vm_prog_bind(p, w->pc_unread);
		vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, R_B, R_PC, 0);
		vm_prog_ja(p, w->shown);
	}
	if (w->two) {
		/* Type and kind apart: a function's type goes on to not_script. */
		vm_prog_bind(p, w->two_slow);
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_C);
		vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, 8);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_C, 0xff);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->func_check_val, w->not_func);
	}
	vm_prog_bind(p, w->not_script);
	if (!(d->flags & VMSTACK_VM_F_KIND_WORD)) {
		/* Called from script code at pc: a script's frame, not this. */
		if (desc3_pc_check(t))
			vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_LINK, w->check);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_B, d->kind_native, w->shown);
	}
	/* A builtin (3.6 compares a kind word's kind_max with no kind byte read: not done here). */
	if (d->flags & VMSTACK_VM_F_NO_BUILTINS) {
		vm_prog_ja(p, w->frame);
	} else {
		if (fcheck && d->kind_max && !(d->flags & VMSTACK_VM_F_KIND_WORD))
			vm_prog_jmp_k(p, VMSTACK_VM4_JGT_K, R_B, d->kind_max, w->bad_kind);
		vm_prog_insn(p, VMSTACK_VM4_EMIT_BUILTIN,
			     d->flags & VMSTACK_VM_F_BUILTIN_KIND ? R_B : R_A, 0, 0);
		vm_prog_ja(p, w->shown);
	}
	if (desc3_pc_check(t))
		unverified(t, w->edge, VMSTACK_VMU_EDGE, w);
	if (fcheck) {
		unverified(t, w->not_func, VMSTACK_VMU_NOT_FUNC, w);
		if (d->kind_max && !(d->flags & (VMSTACK_VM_F_KIND_WORD | VMSTACK_VM_F_NO_BUILTINS)))
			unverified(t, w->bad_kind, VMSTACK_VMU_KIND, w);
	}
}

