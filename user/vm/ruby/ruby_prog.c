// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program for Ruby 3.1's frames, run by the module at each
 * native frame of vm_exec_core (Documentation/descriptor4.md).
 *
 * The interrupted thread's execution context is the thread-local
 * ruby_current_ec, at a fixed offset from the fs base (ruby.c finds it).
 * Its control frames are an array at the end of its VM stack, growing
 * down: the innermost at ec->cfp, the outer ones above it, up to the
 * stack's end (vm_stack + vm_stack_size VALUEs). vm_exec_core runs frames
 * down to the one it was entered with from C, which has
 * VM_FRAME_FLAG_FINISH in its flags (ep[0], a second pointer away). C
 * frames (CFUNC methods, the thread's dummy bottom) have
 * VM_FRAME_FLAG_CFRAME and are on the native stack already: hidden.
 *
 * The context must be the one whose C stack is sampled: a fiber switch
 * (cont.c's fiber_setcontext) swaps the C stack and sets ruby_current_ec
 * a few instructions apart, and in between a sample would splice the
 * other context's frames into this stack, frames never on it. So the
 * first activation's sp (r1) must lie in the context's machine stack,
 * [stack_start - stack_maxsize, stack_start), else the VM part is cut.
 *
 * Registers kept across runs: r8 the next activation's innermost frame,
 * r9 ec, r10 1 once ec is read, r11 the end of the frame array. r12: in
 * the sampled frame only (r4 on entry), until its first Ruby frame is
 * shown: vm_exec_core keeps the frame it runs in r15 and its pc in r14
 * (its prologue, Debian's 3.1.2), and stores the pc to cfp->pc before
 * calls but not in every instruction, so for the frame it runs when
 * sampled r14 is the current pc if r15 is that frame.
 */
#include "vm/ruby/ruby.h"

void ruby_prog(struct vm_prog *p, const struct ruby_layout *L, int32_t tls_ec)
{
	vm_label loop, hidden, emit, done, bad, nostate;

	vm_prog_init(p);
	loop = vm_prog_label(p), hidden = vm_prog_label(p), done = vm_prog_label(p);
	bad = vm_prog_label(p), nostate = vm_prog_label(p), emit = vm_prog_label(p);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 12, 4, 0);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 10, 0, loop);
	vm_prog_ld(p, 8, 0, 9, 6, tls_ec, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 9, 0, nostate);
	vm_prog_ld(p, 8, 0, 7, 9, L->ec_stack_start, VM_NO_LABEL);
	vm_prog_jmp(p, VMSTACK_VM4_JGE, 1, 7, bad);
	vm_prog_ld(p, 8, 0, 13, 9, L->ec_stack_maxsize, VM_NO_LABEL);
	vm_prog_alu(p, VMSTACK_VM4_SUB, 7, 13);
	vm_prog_jmp(p, VMSTACK_VM4_JLT, 1, 7, bad);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	vm_prog_ld(p, 8, 0, 3, 9, L->ec_vm_stack, VM_NO_LABEL);
	vm_prog_ld(p, 8, 0, 11, 9, L->ec_vm_stack_size, VM_NO_LABEL);
	vm_prog_alu_k(p, VMSTACK_VM4_LSH_K, 11, 3);
	vm_prog_alu(p, VMSTACK_VM4_ADD, 11, 3);
	vm_prog_ld(p, 8, 0, 8, 9, L->ec_cfp, VM_NO_LABEL);
	/* The frames lie inside the VM stack. */
	vm_prog_jmp(p, VMSTACK_VM4_JLT, 8, 3, bad);
	vm_prog_bind(p, loop);
	vm_prog_jmp(p, VMSTACK_VM4_JGE, 8, 11, done);
	vm_prog_ld(p, 8, 0, 3, 8, L->cfp_ep, VM_NO_LABEL);
	vm_prog_ld(p, 8, 0, 3, 3, 0, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 3, (int32_t)L->flag_cframe, hidden);
	/* A Ruby frame: its iseq and pc (neither 0). */
	vm_prog_ld(p, 8, 0, 4, 8, L->cfp_iseq, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 4, 0, hidden);
	vm_prog_ld(p, 8, 0, 2, 8, L->cfp_pc, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 2, 0, hidden);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 12, 0, emit);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 12, 0, 0);
	vm_prog_ldreg(p, 5, VMSTACK_VM_REG_R15);
	vm_prog_jmp(p, VMSTACK_VM4_JNE, 5, 8, emit);
	vm_prog_ldreg(p, 2, VMSTACK_VM_REG_R14);
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 4, 2, 0);
	vm_prog_bind(p, hidden);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, 8, L->cfp_size);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 3, (int32_t)L->flag_finish, done);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, done);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(p, bad);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(p, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}
