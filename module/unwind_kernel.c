// SPDX-License-Identifier: GPL-2.0
/* The kernel part of a stack, from the interrupted registers, with ORC. */
#include <linux/sched.h>
#include <asm/unwind.h>
#include <linux/vmstack.h>
#include "unwind_kernel.h"

unsigned int vmstack_unwind_kernel(struct pt_regs *regs, u64 *ips,
				   unsigned int max, u16 *flags)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (!max)
		return 0;
	/*
	 * Registers a software event took where it was counted
	 * (perf_fetch_caller_regs(): a context switch) hold an ip and an sp
	 * of two different frames, which no unwinder can start from; as
	 * perf_callchain_kernel() does, walk this stack from here and show
	 * the frames above that sp. Registers an interrupt saved have
	 * X86_EFLAGS_FIXED set.
	 */
	if (regs->flags & X86_EFLAGS_FIXED) {
		ips[n++] = regs->ip;
		unwind_start(&state, current, regs, NULL);
	} else {
		unwind_start(&state, current, NULL, (unsigned long *)regs->sp);
	}
	/*
	 * The ORC unwinder is bounded by the stacks it knows and refuses to
	 * leave them, so this loop ends; max bounds our own cost.
	 */
	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		/* Started from regs, the first frame is regs->ip itself. */
		if (n == 1 && addr == regs->ip)
			continue;
		if (n == max) {
			*flags |= VMSTACK_SF_KERNEL_TRUNC;
			break;
		}
		ips[n++] = addr;
	}
	return n;
}
