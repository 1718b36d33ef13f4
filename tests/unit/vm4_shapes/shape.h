/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake stacks in the shape of real interpreters (issue 26's "Done
 * when"): each runtime's file builds its VM's memory from that runtime's
 * struct offsets at a named version (runtime-layouts.md on branch
 * runtime-facts gives them with their sources), assembles its ABI 4
 * program with user/vm/prog.h, and runs the module's walk (vm_walk.c,
 * vm_prog.c) over the fake memory. This is what they share: a native
 * stack of frame-pointer frames holding two activations of the
 * interpreter with C between them, a bump allocator for VM objects, the
 * thread's TLS block, and the comparison of the merged ips[].
 */
#ifndef VMSTACK_VM4_SHAPE_H
#define VMSTACK_VM4_SHAPE_H

#include "fake_mem.h"
#include "unit.h"
#include "vm/prog.h"
#include "vm/runtime.h"
#include "vm_prog.h"

/* The interpreter loop's code: the VM's one entry range. */
#define SHAPE_VM_LO	0x400000UL
#define SHAPE_VM_HI	0x410000UL
/* Native code outside it (C functions, main): no memory needed. */
#define SHAPE_C(n)	(0x500000UL + 0x100UL * (n))
/* The fs base: TLS variables of the static block lie below it. */
#define SHAPE_FS	0x7f0000010000UL
/* The native stack the sandwich's frames are on. */
#define SHAPE_STACK	0x7ff000000000UL
#define SHAPE_STACK_LEN	0x4000UL
#define SHAPE_TID	4242U

/*
 * The sandwich every shape uses, innermost first: the sampled C function
 * (SHAPE_LEAF), the inner activation's loop frame, two C frames (a C
 * function of the runtime that calls back into it), the outer
 * activation's loop frame, main. Native frames by frame pointer.
 */
#define SHAPE_LEAF	SHAPE_C(1)
#define SHAPE_INNER_RA	(SHAPE_VM_LO + 0x1230)
#define SHAPE_MID1_RA	SHAPE_C(2)
#define SHAPE_MID2_RA	SHAPE_C(3)
#define SHAPE_OUTER_RA	(SHAPE_VM_LO + 0x4560)
#define SHAPE_MAIN_RA	SHAPE_C(4)
/* The rbp of the inner and outer loop frames (for state kept in a native frame). */
#define SHAPE_INNER_BP	shape_frame_bp(1)
#define SHAPE_OUTER_BP	shape_frame_bp(4)

/*
 * Forget all memory; map the native stack, the heap and the TLS block;
 * the sampled thread is SHAPE_TID with SHAPE_FS again.
 */
void shape_mem(void);
/* The sampled thread's id and fs base in the walks (a live process's thread). */
extern unsigned int shape_tid;
extern u64 shape_tls;
/* @size zeroed bytes of heap, 16-aligned. */
u64 shape_alloc(u64 size);
/*
 * The rbp of native frame @i of the sandwich (0: the sampled one):
 * shape_bp_at[i] where a test sets it (mapped by the test), else on the
 * shapes' stack.
 */
u64 shape_frame_bp(unsigned int i);
extern u64 shape_bp_at[8];

/* A descriptor for @p: the VM range, F4_NATIVE_STEP (a loop in plain C). */
void shape_desc(struct vmstack_vm_desc4 *d, struct vm_prog *p);

/*
 * Walk the sandwich with VM @d (the sample in SHAPE_LEAF) and compare the
 * merged ips[] with @want (@n words); @w is left as the walk left it.
 */
void shape_walk_check(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w,
		      const u64 *want, unsigned int n);

/*
 * The same where neither activation finds its VM's state (a thread the
 * runtime does not know): each loop's native frame stays, after a
 * BROKEN STATE word, and no VM frame is shown.
 */
void shape_walk_check_stateless(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w);

/*
 * The same from a sample at @ip in native frame @frame of the sandwich (1:
 * the inner loop itself), with the sampled registers @regs (by enum
 * vmstack_vm_reg; RBP is the frame's, set here).
 */
void shape_walk_from(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w, u64 ip,
		     unsigned int frame, const unsigned long *regs, const u64 *want,
		     unsigned int n);

/*
 * The same without a comparison: the merged words in @ips (at most @max),
 * their count returned.
 */
unsigned int shape_walk_ips(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w,
			    u64 *ips, unsigned int max);

/*
 * Runtime @runtime's detection on live process @pid, on the first
 * executable mapping whose path holds @path_part that it does not refuse,
 * as the recorder would run it: what it found in @found, why not in @why
 * (256 bytes).
 */
enum vmstack_detect shape_live_detect(int pid, const char *runtime, const char *path_part,
				      struct vmstack_vm_found *found, char *why);

/*
 * The next VM frame of a walk's words @ips (@n of them) from ips[*k] on,
 * named by runtime @rt's namer for @build of process @pid into @nb
 * (zeroed first; a namer that fails is a failed CHECK): true, *k left at
 * the frame's pc word; false when no VM frame is left.
 */
bool shape_next_named(const struct vmstack_runtime *rt, const void *build, int pid,
		      const u64 *ips, unsigned int n, unsigned int *k,
		      struct vmstack_name_buf *nb);

/* The walk alone: the merged ips[] (at most @max) in @ips, and their count. */
unsigned int shape_walk_at(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w, u64 ip,
			   unsigned int frame, const unsigned long *regs, u64 *ips,
			   unsigned int max);

/* VM words of the shapes' one VM. */
static inline u64 shape_word(unsigned int kind, u64 v)
{
	return vmstack_vmw(kind, 0, v);
}

/* Short forms of the assembler's calls, to read a program as a listing. */
static inline void ld(struct vm_prog *p, int size, int dst, int src, int32_t off)
{
	vm_prog_ld(p, size, 0, dst, src, off, VM_NO_LABEL);
}

static inline void jk(struct vm_prog *p, int op, int dst, int32_t imm, vm_label l)
{
	vm_prog_jmp_k(p, op, dst, imm, l);
}

static inline void op(struct vm_prog *p, int opcode, int dst, int src, int32_t imm)
{
	vm_prog_insn(p, opcode, dst, src, imm);
}

static inline void bind(struct vm_prog *p, vm_label l)
{
	vm_prog_bind(p, l);
}

static inline void xit(struct vm_prog *p, int how)
{
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, how);
}

#endif
