/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the frame loop of an ABI 3 descriptor's program (desc3_walk.c)
 * and the frame it shows (desc3_show.c) share: the labels between them,
 * and which bits of R_BITS the descriptor's checks read.
 */
#ifndef VMSTACK_VM_DESC3_WALK_H
#define VMSTACK_VM_DESC3_WALK_H

#include "vm/desc3_tr.h"

/* The labels the frame loop jumps to: its ends, and the blocks out of it. */
struct walk {
	/* Why the walk ends, with a 3.6 reason in R_I, at t->walk_end. */
	vm_label read, frame, check, depth;
	vm_label shown, hidden, next;
	/* Out of the loop: each is emitted only where the loop jumps to it. */
	vm_label from_reg, from_reg_back;	/* F_PC_CHECK, the PC register's */
	vm_label two_slow;		/* type and kind read as one: not a script */
	vm_label not_script;		/* a builtin, or a native function */
	vm_label pc_bad, ident;		/* F_PC_CHECK: a PC not in the function */
	vm_label pc_unread;		/* F_FRAME_PC: no PC read */
	vm_label edge, not_func, bad_kind;	/* an unverified top frame */
	vm_label at_bottom;
	bool two;			/* two_slow is used */
};

static inline void desc3_mov_k(struct desc3_tr *t, int dst, int32_t v)
{
	vm_prog_alu_k(&t->p, VMSTACK_VM4_MOV_K, dst, v);
}

/* Only F_PC_CHECK reads where the PC came from (the B_FROM bits). */
static inline bool desc3_pc_check(const struct desc3_tr *t)
{
	return t->d->flags & VMSTACK_VM_F_PC_CHECK;
}

/* Only the unverified frames (the checks) read B_TOP. */
static inline bool desc3_top_read(const struct desc3_tr *t)
{
	return t->d->flags & (VMSTACK_VM_F_PC_CHECK | VMSTACK_VM_F_FUNC_CHECK);
}

/*
 * Show the frame at R_FRAME (3.6's vmstack_vm_show): a script's falls
 * through to w->shown; a builtin's, native's, the state's own or an
 * unverified word's goes there by a jump.
 */
void desc3_show(struct desc3_tr *t, struct walk *w);
/* desc3_show()'s blocks out of the loop, after it. */
void desc3_show_out(struct desc3_tr *t, const struct walk *w);

#endif
