// SPDX-License-Identifier: GPL-2.0
/*
 * The user part of a stack. Where the recorder uploaded rules derived
 * from .eh_frame (unwind_table.c) a frame is unwound by its rule, which
 * also covers code without frame pointers and the caller of a leaf that
 * has not set up its frame yet; elsewhere by frame pointer.
 *
 * Runs in interrupt or NMI context: every read is a nofault copy and every
 * step must move up the stack, so a corrupt stack ends the walk instead of
 * looping. Pure code (walk.h): the host unit tests run it on fake stacks.
 */
#include "walk.h"

enum vmstack_step {
	VMSTACK_STEP_OK,
	VMSTACK_STEP_END,	/* the outermost frame */
	VMSTACK_STEP_BROKEN,	/* a step that does not move up the stack */
	VMSTACK_STEP_FAULT,	/* unreadable memory */
};

/*
 * Every step moves the stack pointer up by a word at least, to an aligned
 * address not absurdly far: so the walk ends whatever the stack holds.
 */
static bool vmstack_frame_ok(unsigned long addr, unsigned long sp)
{
	return !(addr & 7) && addr >= sp + 8 && addr - sp <= VMSTACK_USER_STACK_SPAN;
}

static enum vmstack_step vmstack_step_fp(struct vmstack_walk *w,
					 struct vmstack_user_regs *r)
{
	unsigned long frame[2];		/* saved rbp, return address */

	if (!r->bp)
		return VMSTACK_STEP_END;
	if ((r->bp & 7) || r->bp < r->sp || r->bp - r->sp > VMSTACK_USER_STACK_SPAN)
		return VMSTACK_STEP_BROKEN;
	if (!vmstack_walk_read(w, frame, r->bp, sizeof(frame)))
		return VMSTACK_STEP_FAULT;
	if (frame[0] && frame[0] <= r->bp)
		return VMSTACK_STEP_BROKEN;
	r->sp = r->bp + sizeof(frame);
	r->bp = frame[0];
	r->ip = frame[1];
	return VMSTACK_STEP_OK;
}

static enum vmstack_step vmstack_step_rule(struct vmstack_walk *w,
					   struct vmstack_user_regs *r,
					   const struct vmstack_uw_row *row)
{
	unsigned long cfa, ra, bp = r->bp;
	unsigned long pair[2];		/* saved rbp, return address */

	cfa = (row->cfa == VMSTACK_UW_CFA_RSP ? r->sp : r->bp) + row->cfa_off;
	if (!vmstack_frame_ok(cfa, r->sp))
		return VMSTACK_STEP_BROKEN;
	/*
	 * A function that pushed rbp first keeps it just below the return
	 * address (CFA - 16): one read for both, as for a frame pointer.
	 */
	if (row->rbp == VMSTACK_UW_RBP_SAVED && row->rbp_off == -16) {
		if (!vmstack_walk_read(w, pair, cfa - 16, sizeof(pair)))
			return VMSTACK_STEP_FAULT;
		bp = pair[0];
		ra = pair[1];
	} else {
		if (!vmstack_walk_read(w, &ra, cfa - 8, sizeof(ra)))
			return VMSTACK_STEP_FAULT;
		if (row->rbp == VMSTACK_UW_RBP_SAVED &&
		    !vmstack_walk_read(w, &bp, cfa + row->rbp_off, sizeof(bp)))
			return VMSTACK_STEP_FAULT;
	}
	r->sp = cfa;
	r->bp = bp;
	r->ip = ra;
	return VMSTACK_STEP_OK;
}

static enum vmstack_step vmstack_step_signal(struct vmstack_walk *w,
					     struct vmstack_user_regs *r)
{
	/* rbp, rbx, rdx, rax, rcx, rsp, rip in struct sigcontext order */
	unsigned long sc[7];

	if (!vmstack_walk_read(w, sc, r->sp + VMSTACK_SIGCONTEXT_RBP, sizeof(sc)))
		return VMSTACK_STEP_FAULT;
	/* No sigaltstack handling: a frame below (or on another stack) ends it. */
	if (!vmstack_frame_ok(sc[5], r->sp))
		return VMSTACK_STEP_BROKEN;
	r->bp = sc[0];
	r->sp = sc[5];
	r->ip = sc[6];
	return VMSTACK_STEP_OK;
}

/* Store @word; false (and the stack is cut) when ips[] is full. */
static bool vmstack_store(struct vmstack_walk *w, u64 word)
{
	if (w->n == w->max) {
		w->flags |= VMSTACK_SF_USER_TRUNC;
		return false;
	}
	w->ips[w->n++] = word;
	return true;
}

/* One native step over the frame at @r, by its rule or its frame pointer. */
static enum vmstack_step vmstack_step_native(struct vmstack_walk *w,
					     struct vmstack_user_regs *r,
					     const struct vmstack_uw_row *row)
{
	if (row && (row->cfa == VMSTACK_UW_CFA_RSP || row->cfa == VMSTACK_UW_CFA_RBP))
		return vmstack_step_rule(w, r, row);
	if (row && row->cfa == VMSTACK_UW_SIGNAL)
		return vmstack_step_signal(w, r);
	return vmstack_step_fp(w, r);
}

unsigned int vmstack_walk_user(struct vmstack_walk *w)
{
	struct vmstack_user_regs r = { w->ip, w->sp, w->regs[VMSTACK_VM_REG_RBP] };
	const struct vmstack_uw_row *row;
	enum vmstack_splice splice;
	enum vmstack_step step;
	bool exact = true;	/* ip is not a return address */
	bool leaf = true;	/* r is the sampled frame */
	bool hit;
	unsigned int steps = 0;

	w->n = 0;
	if (!w->max)
		return 0;
	for (;;) {
		/*
		 * Every native step stores a frame, so max bounds the walk; a
		 * VM splice may store none (all its frames native), so the
		 * steps are bounded on their own too.
		 */
		if (++steps > 2 * w->max) {
			w->flags |= VMSTACK_SF_USER_TRUNC;
			break;
		}
		/* A return address may be just past its function's end. */
		row = vmstack_uw_lookup_cached(w->rules, w->uw_cache,
					       exact ? r.ip : r.ip - 1, &hit);
		w->uw_lookups += !!w->rules;
		w->uw_hits += hit;
		splice = VMSTACK_SPLICE_NONE;
		if (w->nr_vms) {
			struct vmstack_user_regs caller = r;

			splice = vmstack_vm_splice(w, &r, leaf, !row, &caller);
			if (splice == VMSTACK_SPLICE_CALLER)
				r = caller;
		}
		leaf = false;
		if (splice == VMSTACK_SPLICE_NONE || splice == VMSTACK_SPLICE_NATIVE) {
			if (!vmstack_store(w, r.ip))
				break;
		}
		if (splice == VMSTACK_SPLICE_CALLER) {
			row = NULL;
			step = VMSTACK_STEP_OK;
		} else {
			step = vmstack_step_native(w, &r, row);
		}
		/* Only a signal frame gives an exact ip; others return addresses. */
		exact = row && row->cfa == VMSTACK_UW_SIGNAL;
		if (step == VMSTACK_STEP_BROKEN)
			w->flags |= VMSTACK_SF_USER_BROKEN;
		/* A read the budget refused is not the target's fault. */
		if (step == VMSTACK_STEP_FAULT && !(w->flags & VMSTACK_SF_BUDGET))
			w->flags |= VMSTACK_SF_USER_FAULT;
		if (w->flags & VMSTACK_SF_BUDGET)
			break;
		if (step != VMSTACK_STEP_OK || !r.ip)
			break;
		/*
		 * A return address read from memory that is not a user address
		 * ends the walk: it cannot be code, and in ips[] it could pass
		 * for a VM word.
		 */
		if (r.ip >= VMSTACK_USER_MAX) {
			w->flags |= VMSTACK_SF_USER_BROKEN;
			break;
		}
	}
	return w->n;
}
