// SPDX-License-Identifier: GPL-2.0
/*
 * The user part of a stack. Where the recorder uploaded rules derived
 * from .eh_frame (unwind_table.c) a frame is unwound by its rule, which
 * also covers code without frame pointers and the caller of a leaf that
 * has not set up its frame yet; elsewhere by frame pointer.
 *
 * Runs in interrupt or NMI context: every read is a nofault copy and every
 * step must move up the stack, so a corrupt stack ends the walk instead of
 * looping.
 */
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "vmstack.h"

/*
 * No frame is further than this above the stack pointer. Generous: it only
 * rejects a frame pointer or CFA that is plainly not one.
 */
#define VMSTACK_USER_STACK_SPAN (256UL << 20)

/* Where the kernel's rt_sigframe keeps the interrupted registers: the
 * ucontext is at rsp once the handler returned into the trampoline, and
 * its mcontext (struct sigcontext) starts 40 bytes in.
 */
#define VMSTACK_SIGCONTEXT_RBP	(40 + 80)

enum vmstack_step {
	VMSTACK_STEP_OK,
	VMSTACK_STEP_END,	/* the outermost frame */
	VMSTACK_STEP_BROKEN,	/* a step that does not move up the stack */
	VMSTACK_STEP_FAULT,	/* unreadable memory */
};

static bool vmstack_frame_ok(unsigned long addr, unsigned long sp)
{
	return !(addr & 7) && addr > sp && addr - sp <= VMSTACK_USER_STACK_SPAN;
}

static enum vmstack_step vmstack_step_fp(struct vmstack_user_regs *r)
{
	unsigned long frame[2];		/* saved rbp, return address */

	if (!r->bp)
		return VMSTACK_STEP_END;
	if ((r->bp & 7) || r->bp < r->sp || r->bp - r->sp > VMSTACK_USER_STACK_SPAN)
		return VMSTACK_STEP_BROKEN;
	if (copy_from_user_nofault(frame, (const void __user *)r->bp,
				   sizeof(frame)))
		return VMSTACK_STEP_FAULT;
	if (frame[0] && frame[0] <= r->bp)
		return VMSTACK_STEP_BROKEN;
	r->sp = r->bp + sizeof(frame);
	r->bp = frame[0];
	r->ip = frame[1];
	return VMSTACK_STEP_OK;
}

static enum vmstack_step vmstack_step_rule(struct vmstack_user_regs *r,
					   const struct vmstack_uw_row *row)
{
	unsigned long cfa, ra, bp = r->bp;

	cfa = (row->cfa == VMSTACK_UW_CFA_RSP ? r->sp : r->bp) + row->cfa_off;
	if (!vmstack_frame_ok(cfa, r->sp))
		return VMSTACK_STEP_BROKEN;
	if (copy_from_user_nofault(&ra, (const void __user *)(cfa - 8),
				   sizeof(ra)))
		return VMSTACK_STEP_FAULT;
	if (row->rbp == VMSTACK_UW_RBP_SAVED &&
	    copy_from_user_nofault(&bp, (const void __user *)(cfa + row->rbp_off),
				   sizeof(bp)))
		return VMSTACK_STEP_FAULT;
	r->sp = cfa;
	r->bp = bp;
	r->ip = ra;
	return VMSTACK_STEP_OK;
}

static enum vmstack_step vmstack_step_signal(struct vmstack_user_regs *r)
{
	/* rbp, rbx, rdx, rax, rcx, rsp, rip in struct sigcontext order */
	unsigned long sc[7];

	if (copy_from_user_nofault(sc, (const void __user *)
				   (r->sp + VMSTACK_SIGCONTEXT_RBP), sizeof(sc)))
		return VMSTACK_STEP_FAULT;
	if (sc[5] <= r->sp)	/* no sigaltstack handling: stop there */
		return VMSTACK_STEP_BROKEN;
	r->bp = sc[0];
	r->sp = sc[5];
	r->ip = sc[6];
	return VMSTACK_STEP_OK;
}

unsigned int vmstack_unwind_user(struct vmstack_session *s,
				 struct pt_regs *regs, u64 *ips,
				 unsigned int max, u16 *flags)
{
	struct vmstack_user_regs r = { regs->ip, regs->sp, regs->bp };
	struct vmstack_vm_cursor vm = { 0, 0 };
	const struct vmstack_uw_row *row;
	enum vmstack_step step;
	bool exact = true;	/* ip is not a return address */
	unsigned int n = 0, steps = 0;

	if (!max)
		return 0;
	ips[n++] = r.ip;
	for (;;) {
		/*
		 * Every native step stores a frame, so max bounds the walk; a
		 * VM splice may store none (all its frames native), so the
		 * steps are bounded on their own too.
		 */
		if (++steps > 2 * max) {
			*flags |= VMSTACK_SF_USER_TRUNC;
			break;
		}
		/* A return address may be just past its function's end. */
		row = vmstack_uw_lookup(s, exact ? r.ip : r.ip - 1);
		if (s->nr_vms &&
		    vmstack_vm_splice(s, &r, regs, n == 1, !row, &vm, ips,
				      &n, max, flags)) {
			row = NULL;
			step = VMSTACK_STEP_OK;	/* at the VM's native caller */
		} else {
			if (row && (row->cfa == VMSTACK_UW_CFA_RSP ||
				    row->cfa == VMSTACK_UW_CFA_RBP))
				step = vmstack_step_rule(&r, row);
			else if (row && row->cfa == VMSTACK_UW_SIGNAL)
				step = vmstack_step_signal(&r);
			else
				step = vmstack_step_fp(&r);
		}
		/* Only a signal frame gives an exact ip; others return addresses. */
		exact = row && row->cfa == VMSTACK_UW_SIGNAL;
		if (step == VMSTACK_STEP_BROKEN)
			*flags |= VMSTACK_SF_USER_BROKEN;
		if (step == VMSTACK_STEP_FAULT)
			*flags |= VMSTACK_SF_USER_FAULT;
		if (step != VMSTACK_STEP_OK || !r.ip)
			break;
		if (n == max) {
			*flags |= VMSTACK_SF_USER_TRUNC;
			break;
		}
		ips[n++] = r.ip;
	}
	return n;
}
