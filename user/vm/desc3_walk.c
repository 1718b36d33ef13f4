// SPDX-License-Identifier: GPL-2.0
/*
 * The frame loop of an ABI 3 descriptor's program: ABI 3.6's walk of one
 * activation (module/vm_walk.c's vmstack_vm_walk) as instructions, each
 * frame shown by desc3_show.c. Only the flags the descriptor has make
 * code, so each runtime's loop is as short as its checks. The reads are 3.6's, in its order, so that every fake stack of
 * the walk tests gives the frames it gave.
 *
 * The module runs every instruction through its dispatch, in the sample
 * handler, for every frame: the loop is laid out for the frame most
 * frames are (a script function's, called from script code), which
 * falls through from one step to the next; what is rare (a frame caught
 * changing, a builtin, the bottom) is out of the loop, after it, and
 * jumps back. What is the same for every frame of a walk is computed
 * once, before the loop.
 */
#include "vm/desc3_walk.h"

/* R_PC = 0, and so the PC is from nowhere (3.6's VMSTACK_VM_PC_NONE). */
static void pc_none(struct desc3_tr *t)
{
	desc3_mov_k(t, R_PC, 0);
	if (desc3_pc_check(t))
		vm_prog_alu_k(&t->p, VMSTACK_VM4_AND_K, R_BITS, ~B_FROM);
}

/*
 * Jump to @l if the link type in R_TYPE (link & type_mask, at most 31)
 * is one of @set's bits: a compare per type where there are one or two
 * (or all types but one), else 1 << type tested (@tmp, R_C scratch).
 */
static void jmp_types(struct desc3_tr *t, uint32_t set, int tmp, vm_label l)
{
	uint32_t can = 0;
	unsigned int i, n;

	for (i = 0; i < 32; i++)
		if (!(i & ~t->d->type_mask))
			can |= 1U << i;
	set &= can;
	n = (unsigned int)__builtin_popcount(set);
	if (!n)
		return;
	if (set == can) {
		vm_prog_ja(&t->p, l);
	} else if (n <= 2) {
		for (i = 0; i < 32; i++)
			if (set & 1U << i)
				vm_prog_jmp_k(&t->p, VMSTACK_VM4_JEQ_K, R_TYPE, (int32_t)i, l);
	} else if (__builtin_popcount(can & ~set) == 1) {
		vm_prog_jmp_k(&t->p, VMSTACK_VM4_JNE_K, R_TYPE,
			      __builtin_ctz(can & ~set), l);
	} else {
		desc3_mov_k(t, tmp, 1);
		vm_prog_alu(&t->p, VMSTACK_VM4_LSH, tmp, R_TYPE);
		vm_prog_jmp64(&t->p, VMSTACK_VM4_JSET_K, tmp, set, R_C, l);
	}
}

/* Walk end at the bottom: where the outer activation's frames start (R_A, 0: unknown). */
static void bottom(struct desc3_tr *t)
{
	vm_prog_alu(&t->p, VMSTACK_VM4_MOV, R_NEXT, R_A);
	vm_prog_alu(&t->p, VMSTACK_VM4_MOV, R_NSTATE, R_STATE);
	desc3_mov_k(t, R_I, 0);
	vm_prog_ja(&t->p, t->walk_end);
}

/*
 * Tagged delta: R_FRAME's caller from its link, on to w->next (a link
 * from script code falls through), or to the bottom. Binds w->shown and
 * w->hidden: where hidden frames' types are no return PC's, a shown
 * frame's B_TOP is cleared on each way (with the B_FROM bits from a
 * return PC), and a hidden frame's link goes to the typed delta at once.
 */
static void link_delta(struct desc3_tr *t, const struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label from_vm = vm_prog_label(p), keep_pc = vm_prog_label(p);
	vm_label not_bottom = vm_prog_label(p), bits_set = vm_prog_label(p);
	bool by_type = !(d->pc_mask & ~d->type_mask), split;
	uint32_t set = 0, from = B_FROM;
	int32_t less = !d->extra;
	unsigned int i;
	int k;

	/* The PC's tag within the type's bits: the types a return PC's link has. */
	for (i = 0; by_type && i <= d->type_mask; i++)
		if (!(i & ~d->type_mask) && (i & d->pc_mask) == d->pc_val)
			set |= 1U << i;
	split = by_type && desc3_top_read(t) && !(set & d->hide_types);
	vm_prog_bind(p, w->shown);
	if (!split) {
		if (desc3_top_read(t))
			vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
		vm_prog_bind(p, w->hidden);
	}
	if (by_type) {
		jmp_types(t, set, R_A, from_vm);
	} else {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_LINK);
		vm_prog_and64(p, R_A, d->pc_mask, R_C);
		vm_prog_jmp64(p, VMSTACK_VM4_JEQ_K, R_A, d->pc_val, R_C, from_vm);
	}
	if (split) {
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
		vm_prog_bind(p, w->hidden);
		from |= B_TOP;
	}
	/* A typed delta: next = frame - (link & ~type_mask), in R_A. */
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_B, R_LINK);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_B, ~(int32_t)d->type_mask);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_FRAME);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
	/* F_PC_CHECK: a hidden frame's function runs in the frame below: its PC too. */
	if (desc3_pc_check(t) && d->hide_types)
		jmp_types(t, d->hide_types, R_B, keep_pc);
	pc_none(t);
	if (d->flags & VMSTACK_VM_F_CONT_PC) {
		vm_label unread = vm_prog_label(p);

		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_TYPE, d->cont_type, keep_pc);
		desc3_ref(t, R_PC, R_FRAME, d->cont_pc_off, unread);
		vm_prog_ja(p, keep_pc);
		vm_prog_bind(p, unread);
		desc3_mov_k(t, R_PC, 0);
	}
	vm_prog_bind(p, keep_pc);
	if (d->bottom_types)
		jmp_types(t, d->bottom_types, R_B, w->at_bottom);
	if (d->flags & VMSTACK_VM_F_CONT_BOTTOM) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_TYPE, d->cont_type, not_bottom);
		desc3_ref(t, R_B, R_FRAME, d->cont_off, not_bottom);
		vm_prog_jmp64(p, VMSTACK_VM4_JEQ_K, R_B, d->cont_val, R_C, w->at_bottom);
	}
	vm_prog_bind(p, not_bottom);
	vm_prog_jmp(p, VMSTACK_VM4_JGE, R_A, R_FRAME, w->frame);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_A);
	vm_prog_ja(p, w->next);

	/* Called from the VM: the link is the caller's return PC. */
	vm_prog_bind(p, from_vm);
	/*
	 * R_B = delta - less: (field + extra) * slot, a delta of at least
	 * 1 with an extra (no wrap: 16 bits times 64), less 1 without one.
	 */
	vm_prog_ld(p, 4, 0, R_B, R_LINK, d->insn_off, w->read);
	if (!(d->slot & (d->slot - 1)) && d->insn_shift >= __builtin_ctz(d->slot)) {
		/* A slot of 2^k: the field k bits less shifted. */
		k = __builtin_ctz(d->slot);
		vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, d->insn_shift - k);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_B,
			      (int32_t)(((1U << d->insn_bits) - 1) << k));
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, ((int32_t)d->extra << k) - less);
	} else {
		vm_prog_alu_k(p, VMSTACK_VM4_RSH_K, R_B, d->insn_shift);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_B, (int32_t)((1U << d->insn_bits) - 1));
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, d->extra);
		vm_prog_alu_k(p, VMSTACK_VM4_MUL_K, R_B, d->slot);
		vm_prog_alu_k(p, VMSTACK_VM4_SUB_K, R_B, less);
	}
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_PC, R_LINK);
	if (desc3_pc_check(t)) {
		/*
		 * Already a return PC's: only a return PC's link set
		 * B_FROM_LINK, clearing B_FROM_REG (and B_TOP, split),
		 * which nothing sets again but the walk's start.
		 */
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_FROM_LINK, bits_set);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~from);
		vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_FROM_LINK);
		vm_prog_bind(p, bits_set);
	} else if (split) {
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
	}
	/*
	 * The caller, frame - delta, must lie below: not when the delta is
	 * 0 or more than frame, that is when delta - 1 >= frame.
	 */
	vm_prog_jmp(p, less ? VMSTACK_VM4_JGE : VMSTACK_VM4_JGT, R_B, R_FRAME, w->frame);
	vm_prog_alu(p, VMSTACK_VM4_SUB, R_FRAME, R_B);
	vm_prog_alu_k(p, VMSTACK_VM4_SUB_K, R_FRAME, less);
}

/* A pointer link: R_FRAME's caller is the link; a null link or bottom_flags ends it. */
static void link_pointer(struct desc3_tr *t, const struct walk *w)
{
	struct vm_prog *p = &t->p;

	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_LINK, 0, w->at_bottom);
	if (t->d->bottom_flags)
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_TYPE, t->d->bottom_flags, w->at_bottom);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_LINK);
	pc_none(t);
}

/* The bottom, out of the loop: the next activation starts below (delta: if it is below). */
static void at_bottom(struct desc3_tr *t, const struct walk *w)
{
	struct vm_prog *p = &t->p;
	vm_label l = vm_prog_label(p);

	vm_prog_bind(p, w->at_bottom);
	if (t->delta) {
		vm_prog_jmp(p, VMSTACK_VM4_JLT, R_A, R_FRAME, l);
		desc3_mov_k(t, R_A, 0);
	} else {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_LINK);
	}
	vm_prog_bind(p, l);
	bottom(t);
}

/* A walk error: its reason in R_I. */
static void walk_err(struct desc3_tr *t, vm_label at, int reason)
{
	vm_prog_bind(&t->p, at);
	desc3_mov_k(t, R_I, reason);
	vm_prog_ja(&t->p, t->walk_end);
}

/*
 * F_VM_STATE: the VM's state, a pseudo-frame above the frames, in the
 * first activation of the sample whose walk starts: R_NSTATE is 0 until
 * a walk ends (at a bottom: bottom(); cut: the program's exit sets it).
 * A walk from the top register that is undone comes here again, to emit
 * it again after the undo.
 */
static void vm_state(struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label done = vm_prog_label(p), emit = vm_prog_label(p);

	if (!(d->flags & VMSTACK_VM_F_VM_STATE))
		return;
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_NSTATE, 0, done);
	desc3_ref(t, R_A, R_STATE, d->vms_g_off, done);
	vm_prog_ld(p, 4, 1, R_A, R_A, d->vms_off, done);
	vm_prog_mov64(p, R_B, VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_GC);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_A, d->vms_gc, emit);
	/* lo <= state <= hi: state - lo, unsigned, at most hi - lo. */
	vm_prog_alu_k(p, VMSTACK_VM4_SUB_K, R_A, d->vms_jit_lo);
	vm_prog_jmp_k(p, VMSTACK_VM4_JGT_K, R_A, d->vms_jit_hi - d->vms_jit_lo, done);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, VMSTACK_VM_VMS_JIT - VMSTACK_VM_VMS_GC);
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_BUILTIN, R_B, 0, 0);
	vm_prog_bind(p, done);
}

/*
 * Before the loop: the PC's origin, and what every frame's checks need
 * (the stack's bounds, the function's mask).
 */
static void walk_start(struct desc3_tr *t, const struct walk *w)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label l = vm_prog_label(p), fits = vm_prog_label(p);
	uint64_t m = d->func_mask;

	if (desc3_pc_check(t))
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_FROM);
	if (desc3_top_read(t))
		vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_TOP);
	if (desc3_pc_check(t)) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_PC, 0, l);
		vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_FROM_REG);
	}
	vm_prog_bind(p, l);
	if (t->delta) {
		desc3_ref(t, R_LO, R_STATE, d->stack_off, w->read);
		if (t->spare) {
			/* frame - lo >= stack_max, for frame >= lo: frame >= hi (all ones past the end). */
			vm_prog_alu(p, VMSTACK_VM4_MOV, R_HI, R_LO);
			vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_HI, (int32_t)d->stack_max);
			vm_prog_jmp(p, VMSTACK_VM4_JGE, R_HI, R_LO, fits);
			desc3_mov_k(t, R_HI, -1);
			vm_prog_bind(p, fits);
		}
	}
	if (t->spare && m != ~0ULL && (int64_t)m != (int32_t)m)
		vm_prog_mov64(p, R_MASK, m);
	desc3_mov_k(t, R_I, 0);
}

void desc3_walk(struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	struct walk w;
	vm_label loop = vm_prog_label(p);

	w.read = vm_prog_label(p);
	w.frame = vm_prog_label(p);
	w.check = vm_prog_label(p);
	w.depth = vm_prog_label(p);
	w.shown = vm_prog_label(p);
	w.hidden = vm_prog_label(p);
	w.next = vm_prog_label(p);
	w.from_reg = vm_prog_label(p);
	w.from_reg_back = vm_prog_label(p);
	w.two_slow = vm_prog_label(p);
	w.not_script = vm_prog_label(p);
	w.pc_bad = vm_prog_label(p);
	w.ident = vm_prog_label(p);
	w.pc_unread = vm_prog_label(p);
	w.edge = vm_prog_label(p);
	w.not_func = vm_prog_label(p);
	w.bad_kind = vm_prog_label(p);
	w.at_bottom = vm_prog_label(p);
	w.two = false;

	vm_prog_bind(p, t->walk);
	vm_state(t);
	walk_start(t, &w);
	/* max_frames >= 1: the first frame is in depth; the loop's end counts the others. */
	vm_prog_bind(p, loop);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_FRAME, 7, w.frame);
	if (t->delta) {
		/* In [lo, lo + stack_max). */
		vm_prog_jmp(p, VMSTACK_VM4_JLT, R_FRAME, R_LO, w.frame);
		if (t->spare) {
			vm_prog_jmp(p, VMSTACK_VM4_JGE, R_FRAME, R_HI, w.frame);
		} else {
			vm_prog_alu(p, VMSTACK_VM4_MOV, R_A, R_FRAME);
			vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_LO);
			vm_prog_jmp64(p, VMSTACK_VM4_JGE_K, R_A, d->stack_max, R_C, w.frame);
		}
	}
	desc3_ref(t, R_LINK, R_FRAME, d->link_off, w.read);
	if (t->delta) {
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_TYPE, R_LINK);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_TYPE, (int32_t)d->type_mask);
		if (d->hide_types)
			jmp_types(t, d->hide_types, R_A, w.hidden);
	} else {
		vm_prog_ld(p, 2, 0, R_TYPE, R_FRAME, d->flags_off, w.read);
		if (d->native_flags)
			vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_TYPE, d->native_flags, w.hidden);
	}
	desc3_show(t, &w);
	/* Only the top frame may be caught changing: below it, frames are at rest. */
	if (t->delta) {
		link_delta(t, &w);
	} else {
		vm_prog_bind(p, w.shown);
		if (desc3_top_read(t))
			vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_TOP);
		vm_prog_bind(p, w.hidden);
		link_pointer(t, &w);
	}
	vm_prog_bind(p, w.next);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_I, 1);
	vm_prog_jmp_k(p, VMSTACK_VM4_JLT_K, R_I, d->max_frames, loop);
	walk_err(t, w.depth, VMSTACK_VMB_DEPTH);

	desc3_show_out(t, &w);
	at_bottom(t, &w);
	walk_err(t, w.read, VMSTACK_VMB_READ);
	walk_err(t, w.frame, VMSTACK_VMB_FRAME);
	walk_err(t, w.check, VMSTACK_VMB_CHECK);
}
