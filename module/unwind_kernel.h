/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel part of a stack (unwind_kernel.c), for the handler. */
#ifndef _VMSTACK_UNWIND_KERNEL_H
#define _VMSTACK_UNWIND_KERNEL_H

#include <linux/types.h>

struct pt_regs;

/* Returns the number of frames stored. */
unsigned int vmstack_unwind_kernel(struct pt_regs *regs, u64 *ips,
				   unsigned int max, u16 *flags);

#endif /* _VMSTACK_UNWIND_KERNEL_H */
