/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the walker's tests on fake stacks share (test_walk.c, native
 * walks and their budgets; test_walk_vm.c, VM frames; test_walk_jit.c,
 * compiled code): where the fake address space's parts are, the walk's
 * output, a walk's start, and the toy VM most VM tests describe.
 */
#ifndef VMSTACK_WALK_SETUP_H
#define VMSTACK_WALK_SETUP_H

#include "walk.h"
#include "vm/desc3.h"

#define STACK	0x7ff000000000UL	/* a native stack */
#define HEAP	0x10000000UL		/* VM states, frames, functions */
#define VM_LO	0x400000UL		/* the interpreter's code */
#define VM_HI	0x401000UL
#define MAIN_RA	0x500100UL		/* native code, no memory needed */

/* What the walks write: walk_from() points a walk here and clears it. */
extern u64 ips[600];

/* A walk from @ip, @sp and rbp @bp: 64 frames, the full read budget. */
struct vmstack_walk walk_from(unsigned long ip, unsigned long sp, unsigned long bp);
/* A fresh fake address space: the stack and the heap mapped, zeroed. */
void mem_setup(void);
/* A frame-pointer frame at @bp: saved rbp, return address. */
void fp_frame(unsigned long bp, unsigned long saved, unsigned long ra);
/* The toy VM (its layout in walk_setup.c). */
struct vmstack_vm_desc toy_desc(void);

#endif
