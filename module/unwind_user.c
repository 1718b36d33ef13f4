// SPDX-License-Identifier: GPL-2.0
/*
 * The user part of a stack by frame-pointer walk. Runs in interrupt or NMI
 * context: every read is a nofault copy and every step must move up the
 * stack, so a corrupt chain ends the walk instead of looping.
 */
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "vmstack.h"

/*
 * No frame is further than this above the stack pointer. Generous: it only
 * rejects a frame pointer that is plainly not one.
 */
#define VMSTACK_USER_STACK_SPAN (256UL << 20)

struct vmstack_user_frame {
	unsigned long next_fp;
	unsigned long ret;
};

unsigned int vmstack_unwind_user(struct pt_regs *regs, u64 *ips,
				 unsigned int max, u16 *flags)
{
	struct vmstack_user_frame frame;
	unsigned long sp = regs->sp;
	unsigned long fp = regs->bp;
	unsigned int n = 0;

	if (!max)
		return 0;
	ips[n++] = regs->ip;
	while (fp) {
		if ((fp & 7) || fp < sp || fp - sp > VMSTACK_USER_STACK_SPAN) {
			*flags |= VMSTACK_SF_USER_BROKEN;
			break;
		}
		if (copy_from_user_nofault(&frame, (const void __user *)fp,
					   sizeof(frame))) {
			*flags |= VMSTACK_SF_USER_FAULT;
			break;
		}
		if (!frame.ret)
			break;
		if (n == max) {
			*flags |= VMSTACK_SF_USER_TRUNC;
			break;
		}
		ips[n++] = frame.ret;
		if (frame.next_fp && frame.next_fp <= fp) {
			*flags |= VMSTACK_SF_USER_BROKEN;
			break;
		}
		sp = fp + sizeof(frame);
		fp = frame.next_fp;
	}
	return n;
}
