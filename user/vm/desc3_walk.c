// SPDX-License-Identifier: GPL-2.0
/*
 * The frame loop of an ABI 3 descriptor's program: ABI 3.6's walk of one
 * activation (module/vm_walk.c's vmstack_vm_walk) and its frame shown
 * (vm_frame.c's vmstack_vm_show), as instructions. Only the flags the
 * descriptor has make code, so each runtime's loop is as short as its
 * checks. The reads are 3.6's, in its order, so that every fake stack of
 * the walk tests gives the frames it gave.
 */
#include "vm/desc3_tr.h"

/* Why the walk ends, with a 3.6 reason in R_I, at t->walk_end. */
struct walk_errs {
	vm_label read, frame, check, depth;
};

static void mov_k(struct desc3_tr *t, int dst, int32_t v)
{
	vm_prog_alu_k(&t->p, VMSTACK_VM4_MOV_K, dst, v);
}

/* R_PC = 0, and so the PC is from nowhere (3.6's VMSTACK_VM_PC_NONE). */
static void pc_none(struct desc3_tr *t)
{
	mov_k(t, R_PC, 0);
	vm_prog_alu_k(&t->p, VMSTACK_VM4_AND_K, R_BITS, ~B_FROM);
}

/* Jump to @l if bit (link type R_TYPE) of @mask is set; @tmp, R_C scratch. */
static void jmp_type_in(struct desc3_tr *t, uint32_t mask, int tmp, vm_label l)
{
	mov_k(t, tmp, 1);
	vm_prog_alu(&t->p, VMSTACK_VM4_LSH, tmp, R_TYPE);
	vm_prog_jmp64(&t->p, VMSTACK_VM4_JSET_K, tmp, mask, R_C, l);
}

/*
 * An unverified top frame (3.6: *unv set): its word, and the walk goes
 * on by its link; below the top it cuts the walk (CHECK).
 */
static void unverified(struct desc3_tr *t, vm_label at, int why, vm_label on,
		       const struct walk_errs *e)
{
	vm_label top = vm_prog_label(&t->p);

	vm_prog_bind(&t->p, at);
	vm_prog_jmp_k(&t->p, VMSTACK_VM4_JSET_K, R_BITS, B_TOP, top);
	vm_prog_ja(&t->p, e->check);
	vm_prog_bind(&t->p, top);
	vm_prog_alu_k(&t->p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
	vm_prog_insn(&t->p, VMSTACK_VM4_EMIT_UNVERIFIED, 0, 0, why);
	vm_prog_ja(&t->p, on);
}

/*
 * F_FUNC_CHECK: the type byte at fn (R_A) + func_check_off, and the kind
 * byte with it in one read where it is the next byte (as 3.6 reads them).
 * Jumps to @kind_read with the kind in R_B, to @kind_unread with R_B
 * still the kind's address, or to @not_func.
 */
static void func_check(struct desc3_tr *t, vm_label kind_read, vm_label kind_unread,
		       vm_label not_func, const struct walk_errs *e)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	int32_t off = d->func_check_off;
	vm_label two = vm_prog_label(p);
	bool maybe_two = !(d->flags & VMSTACK_VM_F_KIND_WORD) &&
			 ((d->flags & VMSTACK_VM_F_FUNC_SLOT) || d->kind_off == off + 1);

	if (maybe_two && (d->flags & VMSTACK_VM_F_FUNC_SLOT)) {
		/* The kind's address is the slot's: is it the next byte? */
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_C, R_A);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_C, off + 1);
		vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_C, R_B, two);
	}
	if (!maybe_two || (d->flags & VMSTACK_VM_F_FUNC_SLOT)) {
		vm_prog_ld(p, 1, 0, R_C, R_A, off, e->read);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->func_check_val, not_func);
		vm_prog_ja(p, kind_unread);
	}
	vm_prog_bind(p, two);
	if (!maybe_two)
		return;
	/* Little-endian: the type is the low byte, the kind the high one. */
	vm_prog_ld(p, 2, 0, R_C, R_A, off, e->read);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_C);
	vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, 8);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_C, 0xff);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->func_check_val, not_func);
	vm_prog_ja(p, kind_read);
}

/*
 * F_PC_CHECK with a PC from a register or a link: the identity (code
 * start, R_B) read as 3.6's vmstack_vm_pc_in() reads it, the PC in the
 * code or else: the register's PC is not shown; a link's cuts the walk.
 */
static void pc_in(struct desc3_tr *t, vm_label done, const struct walk_errs *e)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	int64_t size_off = (int64_t)d->ident_adj + d->pc_size_off;
	vm_label bad = vm_prog_label(p), reg = vm_prog_label(p);

	desc3_ref(t, R_B, R_A, d->ident_off, e->read);
	if (size_off == (int32_t)size_off) {
		vm_prog_ld(p, 4, 0, R_C, R_B, (int32_t)size_off, e->read);
	} else {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_C, R_B);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_C, d->ident_adj);
		vm_prog_ld(p, 4, 0, R_C, R_C, d->pc_size_off, e->read);
	}
	/* code < pc <= code + units * pc_unit */
	vm_prog_jmp(p, VMSTACK_VM4_JLE, R_PC, R_B, bad);
	vm_prog_alu_k(p, VMSTACK_VM4_MUL_K, R_C, d->pc_unit);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_PC);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
	vm_prog_jmp(p, VMSTACK_VM4_JGT, R_A, R_C, bad);
	vm_prog_ja(p, done);
	vm_prog_bind(p, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_REG, reg);
	vm_prog_ja(p, e->check);
	vm_prog_bind(p, reg);
	mov_k(t, R_PC, 0);
	vm_prog_ja(p, done);
}

/*
 * Show the frame at R_FRAME (3.6's vmstack_vm_show): on to @shown when
 * it is shown or skipped, to @on (the link) when an unverified word
 * stands for it; else a walk error.
 */
static void show(struct desc3_tr *t, vm_label shown, vm_label on, const struct walk_errs *e)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	bool pc_check = d->flags & VMSTACK_VM_F_PC_CHECK;
	bool fcheck = d->flags & VMSTACK_VM_F_FUNC_CHECK;
	vm_label kind_read = vm_prog_label(p), kind_unread = vm_prog_label(p);
	vm_label script = vm_prog_label(p), ident = vm_prog_label(p);
	vm_label edge = vm_prog_label(p), not_func = vm_prog_label(p);
	vm_label bad_kind = vm_prog_label(p), emit = vm_prog_label(p);
	vm_label l;

	/* R_A: the function; R_B: where its kind is. */
	desc3_ref(t, R_A, R_FRAME, d->func_off, e->read);
	if (d->flags & VMSTACK_VM_F_FUNC_SLOT) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->kind_off);
		desc3_ref(t, R_A, R_A, 0, e->read);
		vm_prog_and64(p, R_A, d->func_mask, R_C);
	} else {
		vm_prog_and64(p, R_A, d->func_mask, R_C);
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->kind_off);
	}
	/* The state's own frame (a VM's base frame) is not shown. */
	if (d->state_from != VMSTACK_VM_STATE_NONE || (d->flags & VMSTACK_VM_F_JIT)) {
		l = vm_prog_label(p);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_STATE, 0, l);
		vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_A, R_STATE, shown);
		vm_prog_bind(p, l);
	}
	/* pc_reg is the frame's own link: being entered or left. */
	if (pc_check) {
		vm_label past = vm_prog_label(p);

		l = vm_prog_label(p);
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_REG, l);
		vm_prog_ja(p, past);
		vm_prog_bind(p, l);
		vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_PC, R_LINK, edge);
		vm_prog_bind(p, past);
	}
	if (fcheck)
		func_check(t, kind_read, kind_unread, not_func, e);
	vm_prog_bind(p, kind_unread);
	if (d->flags & VMSTACK_VM_F_KIND_WORD) {
		vm_prog_ld(p, 8, 0, R_B, R_B, 0, e->read);
		vm_prog_jmp64(p, VMSTACK_VM4_JEQ_K, R_B, d->kind_word, R_C, script);
		vm_prog_bind(p, kind_read);
	} else {
		vm_prog_ld(p, 1, 0, R_B, R_B, 0, e->read);
		vm_prog_bind(p, kind_read);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_B, d->kind_script, script);
		/* Called from script code at pc: a script's frame, not this. */
		if (pc_check)
			vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_LINK, e->check);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_B, d->kind_native, shown);
	}
	/* A builtin (3.6 compares a kind word's kind_max with no kind byte read: not done here). */
	if (d->flags & VMSTACK_VM_F_NO_BUILTINS) {
		vm_prog_ja(p, e->frame);
	} else {
		if (fcheck && d->kind_max && !(d->flags & VMSTACK_VM_F_KIND_WORD))
			vm_prog_jmp_k(p, VMSTACK_VM4_JGT_K, R_B, d->kind_max, bad_kind);
		vm_prog_insn(p, VMSTACK_VM4_EMIT_BUILTIN,
			     d->flags & VMSTACK_VM_F_BUILTIN_KIND ? R_B : R_A, 0, 0);
		vm_prog_ja(p, shown);
	}

	/* A script function: its identity in R_B. */
	vm_prog_bind(p, script);
	if (d->flags & VMSTACK_VM_F_FUNC_IDENT) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_A);
	} else if (pc_check) {
		l = vm_prog_label(p);
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM, l);
		desc3_ref(t, R_B, R_A, d->ident_off, e->read);
		vm_prog_ja(p, ident);
		vm_prog_bind(p, l);
		pc_in(t, ident, e);
	} else {
		desc3_ref(t, R_B, R_A, d->ident_off, e->read);
	}
	vm_prog_bind(p, ident);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->ident_adj);
	if (d->flags & VMSTACK_VM_F_IDENT_CHECK) {
		vm_prog_ld(p, 1, 0, R_C, R_B, d->ident_check_off, e->frame);
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_C, d->ident_check_val, e->frame);
	}
	l = vm_prog_label(p);
	if (d->flags & VMSTACK_VM_F_FRAME_PC)
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_PC, 0, l);
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, R_B, R_PC, 0);
	vm_prog_ja(p, shown);
	vm_prog_bind(p, l);
	if (d->flags & VMSTACK_VM_F_FRAME_PC) {
		/* Unreadable: shown without a PC (R_PC stays 0). */
		vm_prog_ld(p, 8, 0, R_PC, R_FRAME, d->frame_pc_off, emit);
		vm_prog_ja(p, emit);
	}

	unverified(t, edge, VMSTACK_VMU_EDGE, on, e);
	unverified(t, not_func, VMSTACK_VMU_NOT_FUNC, on, e);
	unverified(t, bad_kind, VMSTACK_VMU_KIND, on, e);
}

/* Walk end at the bottom: where the outer activation's frames start (R_A, 0: unknown). */
static void bottom(struct desc3_tr *t)
{
	vm_prog_alu(&t->p, VMSTACK_VM4_MOV, R_NEXT, R_A);
	vm_prog_alu(&t->p, VMSTACK_VM4_MOV, R_NSTATE, R_STATE);
	mov_k(t, R_I, 0);
	vm_prog_ja(&t->p, t->walk_end);
}

/* Tagged delta: R_FRAME's caller from its link; to @next, or to the bottom. */
static void link_delta(struct desc3_tr *t, vm_label next, const struct walk_errs *e)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label from_vm = vm_prog_label(p), keep_pc = vm_prog_label(p);
	vm_label at_bottom = vm_prog_label(p), not_bottom = vm_prog_label(p);
	vm_label l = vm_prog_label(p);

	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_LINK);
	vm_prog_and64(p, R_A, d->pc_mask, R_C);
	vm_prog_jmp64(p, VMSTACK_VM4_JEQ_K, R_A, d->pc_val, R_C, from_vm);
	/* A typed delta: next = frame - (link & ~type_mask), in R_A. */
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_LINK);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_B, ~(int32_t)d->type_mask);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_FRAME);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
	/* F_PC_CHECK: a hidden frame's function runs in the frame below: its PC too. */
	if ((d->flags & VMSTACK_VM_F_PC_CHECK) && d->hide_types)
		jmp_type_in(t, d->hide_types, R_B, keep_pc);
	pc_none(t);
	vm_prog_bind(p, keep_pc);
	if (d->bottom_types)
		jmp_type_in(t, d->bottom_types, R_B, at_bottom);
	if (d->flags & VMSTACK_VM_F_CONT_BOTTOM) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_TYPE, d->cont_type, not_bottom);
		desc3_ref(t, R_B, R_FRAME, d->cont_off, not_bottom);
		vm_prog_jmp64(p, VMSTACK_VM4_JEQ_K, R_B, d->cont_val, R_C, at_bottom);
	}
	vm_prog_bind(p, not_bottom);
	vm_prog_jmp(p, VMSTACK_VM4_JGE, R_A, R_FRAME, e->frame);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_A);
	vm_prog_ja(p, next);
	/* The bottom: the next activation starts below, if it is below. */
	vm_prog_bind(p, at_bottom);
	vm_prog_jmp(p, VMSTACK_VM4_JLT, R_A, R_FRAME, l);
	mov_k(t, R_A, 0);
	vm_prog_bind(p, l);
	bottom(t);

	/* Called from the VM: the link is the caller's return PC. */
	vm_prog_bind(p, from_vm);
	vm_prog_ld(p, 4, 0, R_B, R_LINK, d->insn_off, e->read);
	vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, d->insn_shift);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_B, (int32_t)((1U << d->insn_bits) - 1));
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->extra);
	vm_prog_alu_k(p, VMSTACK_VM4_MUL_K, R_B, d->slot);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_FRAME);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_PC, R_LINK);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_FROM);
	vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_FROM_LINK);
	vm_prog_jmp(p, VMSTACK_VM4_JGE, R_A, R_FRAME, e->frame);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_A);
	vm_prog_ja(p, next);
}

/* A pointer link: R_FRAME's caller is the link; a null link or bottom_flags ends it. */
static void link_pointer(struct desc3_tr *t, vm_label next)
{
	struct vm_prog *p = &t->p;
	vm_label at_bottom = vm_prog_label(p);

	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_LINK, 0, at_bottom);
	if (t->d->bottom_flags)
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_TYPE, t->d->bottom_flags, at_bottom);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_LINK);
	pc_none(t);
	vm_prog_ja(p, next);
	vm_prog_bind(p, at_bottom);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_LINK);
	bottom(t);
}

/* A walk error: its reason in R_I. */
static void walk_err(struct desc3_tr *t, vm_label at, int reason)
{
	vm_prog_bind(&t->p, at);
	mov_k(t, R_I, reason);
	vm_prog_ja(&t->p, t->walk_end);
}

void desc3_walk(struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	struct walk_errs e = { vm_prog_label(p), vm_prog_label(p), vm_prog_label(p),
			       vm_prog_label(p) };
	vm_label loop = vm_prog_label(p), next = vm_prog_label(p);
	vm_label hidden = vm_prog_label(p), shown = vm_prog_label(p);
	vm_label l = vm_prog_label(p);

	vm_prog_bind(p, t->walk);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_FROM);
	vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_TOP);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_PC, 0, l);
	vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_FROM_REG);
	vm_prog_bind(p, l);
	if (t->delta)
		desc3_ref(t, R_LO, R_STATE, d->stack_off, e.read);
	mov_k(t, R_I, 0);

	vm_prog_bind(p, loop);
	vm_prog_jmp_k(p, VMSTACK_VM4_JGE_K, R_I, d->max_frames, e.depth);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_FRAME, 7, e.frame);
	if (t->delta) {
		/* In [lo, lo + stack_max). */
		vm_prog_jmp(p, VMSTACK_VM4_JLT, R_FRAME, R_LO, e.frame);
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_FRAME);
		vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_LO);
		vm_prog_jmp64(p, VMSTACK_VM4_JGE_K, R_A, d->stack_max, R_C, e.frame);
	}
	desc3_ref(t, R_LINK, R_FRAME, d->link_off, e.read);
	if (t->delta) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_TYPE, R_LINK);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_TYPE, (int32_t)d->type_mask);
		if (d->hide_types)
			jmp_type_in(t, d->hide_types, R_A, hidden);
	} else {
		vm_prog_ld(p, 2, 0, R_TYPE, R_FRAME, d->flags_off, e.read);
		if (d->native_flags)
			vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_TYPE, d->native_flags, hidden);
	}
	show(t, shown, hidden, &e);
	/* Only the top frame may be caught changing: below it, frames are at rest. */
	vm_prog_bind(p, shown);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
	vm_prog_bind(p, hidden);
	if (t->delta)
		link_delta(t, next, &e);
	else
		link_pointer(t, next);
	vm_prog_bind(p, next);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_I, 1);
	vm_prog_ja(p, loop);

	walk_err(t, e.read, VMSTACK_VMB_READ);
	walk_err(t, e.frame, VMSTACK_VMB_FRAME);
	walk_err(t, e.check, VMSTACK_VMB_CHECK);
	walk_err(t, e.depth, VMSTACK_VMB_DEPTH);
}
