/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ABI 4 VM descriptor's program, run at one activation (vm_prog.c),
 * and the check that makes it safe to run (vm_prog_check.c). Pure code
 * (walk.h): the host unit tests run it on fake memory.
 */
#ifndef _VMSTACK_VM_PROG_H
#define _VMSTACK_VM_PROG_H

#include "walk.h"
#include "vm_prog_check.h"

/*
 * Run descriptor @d's program for one activation. @r: r0..r15 as the
 * ABI's "A run" says (the caller fills r0..r7, and r8..r11 from
 * w->vm_carry; this stores r8..r11 back). Returns the EXIT immediate
 * (enum vmstack_vm4_exit), or VMSTACK_VM4_X_CUT + a VMSTACK_VMB_* reason
 * when the run was cut (a read failed, faults, budget, steps, depth).
 * When the sample's ips[] fills up the run ends as X_SHOWN with r1 = 0:
 * the stack is cut there (VMSTACK_SF_USER_TRUNC) whatever comes next.
 * @d must have passed vmstack_vm_desc4_check().
 */
int vmstack_vm_prog_run(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
			u64 r[VMSTACK_VM4_REGS]);

#endif
