/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two halves of the ABI 3 -> 4 translator share (desc3_prog.c:
 * finding the state and the top frame, compiled code, the exits;
 * desc3_walk.c: the frame loop and the frame it shows): the registers'
 * roles and the labels between the halves.
 */
#ifndef VMSTACK_VM_DESC3_TR_H
#define VMSTACK_VM_DESC3_TR_H

#include <stdbool.h>

#include "vm/desc3.h"
#include "vm/prog.h"

/*
 * Registers. r0..r7 hold the run's inputs at the start (ABI 4's "A run");
 * each is taken before its register is reused. r8..r11 live across the
 * sample's runs of this descriptor.
 */
enum {
	R_I = 0,	/* the walk's frame count; then its result (0 or VMSTACK_VMB_*) */
	R_AR = 1,	/* the activation record: r1 at EXIT */
	R_A = 2, R_B = 3, R_C = 12,	/* scratch */
	R_LINK = 4,	/* the frame's link */
	R_TYPE = 5,	/* its link type (tagged delta) or u16 flags (pointer) */
	R_LO = 6,	/* the VM stack's low end (tagged delta) */
	R_BITS = 7,	/* B_* below */
	R_NEXT = 8,	/* where the outer activation's frames start (3.6's next_top)... */
	R_NSTATE = 9,	/* ...and the state they are of */
	R_THR = 10,	/* STATE_THREAD: the thread's state, once looked up... */
	R_TRIED = 11,	/* ...1 once tried this sample */
	R_STATE = 13, R_FRAME = 14, R_PC = 15,
	/*
	 * Without STATE_THREAD, r10 and r11 are free: the frame loop keeps
	 * what every frame would compute again there (desc3_tr.spare).
	 */
	R_HI = 10,	/* the VM stack's end (tagged delta): R_LO + stack_max */
	R_MASK = 11,	/* func_mask, where no imm holds it */
};

/* Bits of R_BITS: which walk runs, where its PC came from, and the frame it is at. */
#define B_REG		0x1	/* the walk from the top register */
#define B_JIT		0x2	/* the walk from compiled code's top */
#define B_FROM_REG	0x10	/* the PC is pc_reg's (3.6's VMSTACK_VM_PC_REG) */
#define B_FROM_LINK	0x20	/* the PC is the return PC of the frame above */
#define B_FROM		(B_FROM_REG | B_FROM_LINK)
#define B_TOP		0x100	/* no frame shown yet in this walk */
#define B_LEAF		0x200	/* the sampled frame (r4 at the start) */

struct desc3_tr {
	struct vm_prog p;
	const struct vmstack_vm_desc *d;
	bool delta, ref32;
	bool spare;	/* R_HI and R_MASK are the frame loop's (no STATE_THREAD) */
	/* The walk: entered with R_STATE, R_FRAME, R_PC, R_BITS set; ends at walk_end. */
	vm_label walk, walk_end;
	/* The exit by the walk's result in R_I (shown, or cut with its reason). */
	vm_label exit;
};

/* dst = the VM reference at src + off (ABI 3's F_REF32: 4 bytes, else 8). */
void desc3_ref(struct desc3_tr *t, int dst, int src, int32_t off, vm_label fail);
/* The frame loop (desc3_walk.c): ABI 3.6's vmstack_vm_walk() and vmstack_vm_show(). */
void desc3_walk(struct desc3_tr *t);

#endif
