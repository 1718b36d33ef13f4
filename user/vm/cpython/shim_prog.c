// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program for CPython 3.12 and later (Documentation/descriptor4.md).
 *
 * How these versions keep their frames: a thread's _PyInterpreterFrames
 * form one chain through ->previous, from the innermost (3.12:
 * tstate->cframe->current_frame; 3.13+: tstate->current_frame). Each time C
 * enters the eval loop, _PyEval_EvalFrameDefault pushes a shim frame on
 * its own C stack (owner FRAME_OWNED_BY_CSTACK, 3.14's
 * FRAME_OWNED_BY_INTERPRETER; 3.13's and later ones also run Py_None),
 * whose ->previous is the caller's frame: the shim ends one
 * activation's frames and links to the next one's. So the first run of
 * a sample (the innermost native activation) finds the thread's state and
 * its current frame, shows frames down to a shim and leaves the frame
 * below it in r8 for the run at the next native activation outwards.
 *
 * The thread state is found by the thread's id in every interpreter's
 * thread list (native_thread_id is gettid()'s value): 3.12's TLS slot
 * _Py_tss_tstate would be faster for the thread holding the GIL, but is
 * NULL in a thread that released it (sleep, I/O), whose frames the list
 * still finds.
 *
 * Where the build's code shows it (shim_place.c), the shim met is
 * proved to be this native frame's own, at its sp (or bp) + a fixed offset: in
 * the eval function's first and last instructions, before its shim is
 * linked or after it is unlinked, the chain's first shim is the caller
 * activation's, and this activation then shows nothing (its native frame
 * stays) rather than its caller's frames.
 *
 * Registers: r8 the frame the next activation starts at, r9 the thread
 * state, r10 1 once it was found (kept between runs); r12 the threads
 * left to look at, r13 the frames this run showed, r14 where they began,
 * r15 the native frame's bp (where the shim's place is bp-relative; 0
 * where it is not the frame's own).
 *
 * 3.15 also keeps a base frame at the bottom of every thread's chain
 * (tstate->base_frame: owner 3, None, no previous): the outermost
 * activation's shim leads to it and the walk ends there; met first, it
 * is no activation's own shim (foreign).
 */

#include "vm/cpython/cpython.h"
#include "vm/prog.h"

static void ld64(struct vm_prog *p, int dst, int src, int32_t off)
{
	vm_prog_ld(p, 8, 0, dst, src, off, VM_NO_LABEL);
}

static void leave(struct vm_prog *p, int how)
{
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, how);
}

void cpython_prog_tag(struct vm_prog *p, const struct cpython_layout *L, int code, int tmp)
{
	/* The word keeps the value's 57 bits: of the u16's, the low 10. */
	vm_prog_ld(p, 2, 0, tmp, code, L->co_firstlineno, VM_NO_LABEL);
	vm_prog_alu_k(p, VMSTACK_VM4_LSH_K, tmp, VMSTACK_VM_IDENT_TAG_SHIFT);
	vm_prog_insn(p, VMSTACK_VM4_OR, code, tmp, 0);
}

void cpython_prog_find_thread(struct vm_prog *p, const struct cpython_layout *L,
			      uint64_t runtime, int32_t key_off, int key_reg, vm_label nostate)
{
	vm_label interp = vm_prog_label(p), thread = vm_prog_label(p);
	vm_label next_interp = vm_prog_label(p), have = vm_prog_label(p);

	vm_prog_mov64(p, 7, runtime);
	ld64(p, 7, 7, L->rt_interp_head);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 12, 0, VMSTACK_VM_THREADS_MAX);
	vm_prog_bind(p, interp);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 7, 0, nostate);
	ld64(p, 9, 7, L->is_threads_head);
	vm_prog_bind(p, thread);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 9, 0, next_interp);
	/* A list that does not end (torn, or not a list) ends the search. */
	vm_prog_alu_k(p, VMSTACK_VM4_SUB_K, 12, 1);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 12, 0, nostate);
	ld64(p, 2, 9, key_off);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 2, key_reg, have);
	ld64(p, 9, 9, L->ts_next);
	vm_prog_ja(p, thread);
	vm_prog_bind(p, next_interp);
	ld64(p, 7, 7, L->is_next);
	vm_prog_ja(p, interp);
	vm_prog_bind(p, have);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
}

const char *cpython_shim_prog(const struct cpython_layout *L,
			      const struct cpython_shim_addrs *a, struct vmstack_vm_desc4 *d)
{
	static struct vm_prog p;	/* 4 KB: not on the stack */
	vm_label start, loop, shim, done, empty, foreign, bad, nostate;

	if (L->fr_owner < 0 || L->owner_cstack < 0 || (L->ts_cframe < 0 && L->ts_current_frame < 0))
		return "no shim frame or current frame in the layout";
	vm_prog_init(&p);
	start = vm_prog_label(&p), loop = vm_prog_label(&p), shim = vm_prog_label(&p);
	done = vm_prog_label(&p), empty = vm_prog_label(&p), foreign = vm_prog_label(&p);
	bad = vm_prog_label(&p), nostate = vm_prog_label(&p);

	/*
	 * The native frame's bp, kept for the shim's proof (r2 is a scratch
	 * register). In the sampled frame (r4) it is the eval function's own
	 * only past its prologue's "mov %rsp,%rbp" and before its "leave":
	 * before, and at a ret, it is the caller's, which may be an outer
	 * eval's (C between that keeps rbp), whose shim would pass. There r15
	 * = 0: no shim is proved this frame's. In a caller frame the pc is a
	 * return address, inside the body.
	 */
	if (a->shim_sp < 0 && a->shim_bp) {
		vm_label own = vm_prog_label(&p), not_own = vm_prog_label(&p);
		vm_label at_ret = vm_prog_label(&p);

		vm_prog_insn(&p, VMSTACK_VM4_MOV, 15, 2, 0);
		vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 4, 0, own);
		/* The cold part lies apart from the symbol: no prologue there. */
		vm_prog_jmp64(&p, VMSTACK_VM4_JLT_K, 3, a->code_start, 7, at_ret);
		vm_prog_jmp64(&p, VMSTACK_VM4_JLT_K, 3, a->code_start + (uint64_t)a->shim_bp_from,
			      7, not_own);
		vm_prog_bind(&p, at_ret);
		vm_prog_ld(&p, 1, 0, 7, 3, 0, not_own);
		vm_prog_jmp_k(&p, VMSTACK_VM4_JNE_K, 7, 0xc3, own);
		vm_prog_bind(&p, not_own);
		vm_prog_insn(&p, VMSTACK_VM4_MOV_K, 15, 0, 0);
		vm_prog_bind(&p, own);
	}
	/* An outer activation goes on where the inner one's shim led. */
	vm_prog_jmp_k(&p, VMSTACK_VM4_JNE_K, 10, 0, start);
	cpython_prog_find_thread(&p, L, a->runtime, L->ts_native_tid, 5, nostate);
	if (L->ts_cframe >= 0) {
		ld64(&p, 8, 9, L->ts_cframe);
		ld64(&p, 8, 8, L->cf_current_frame);
	} else {
		ld64(&p, 8, 9, L->ts_current_frame);
	}
	/* Where this activation's frames start, to take them back (foreign). */
	vm_prog_bind(&p, start);
	vm_prog_insn(&p, VMSTACK_VM4_MARK, 0, 0, 0);
	vm_prog_insn(&p, VMSTACK_VM4_MOV, 14, 8, 0);

	vm_prog_bind(&p, loop);
	vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 8, 0, done);
	ld64(&p, 3, 8, L->fr_code);
	/* 3.14+: a _PyStackRef; the object is its bits less the tag. */
	if (L->exec_tag_bits)
		vm_prog_alu_k(&p, VMSTACK_VM4_AND_K, 3, ~(int32_t)L->exec_tag_bits);
	vm_prog_ld(&p, 1, 0, 2, 8, L->fr_owner, VM_NO_LABEL);
	vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 2, L->owner_cstack, shim);
	/* A frame of the thread, a generator or a frame object: its code. */
	ld64(&p, 4, 3, L->ob_type);
	vm_prog_jmp64(&p, VMSTACK_VM4_JNE_K, 4, a->code_type, 7, bad);
	ld64(&p, 4, 8, L->fr_prev_instr);
	cpython_prog_tag(&p, L, 3, 2);
	vm_prog_insn(&p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_alu_k(&p, VMSTACK_VM4_ADD_K, 13, 1);
	ld64(&p, 8, 8, L->fr_previous);
	vm_prog_ja(&p, loop);

	/* The shim: not shown; the next activation starts below it. */
	vm_prog_bind(&p, shim);
	if (L->shim_none)
		vm_prog_jmp64(&p, VMSTACK_VM4_JNE_K, 3, a->none, 7, bad);
	if (a->shim_sp >= 0 || a->shim_bp) {
		/* This native frame's own shim, at its sp + shim_sp (or bp + shim_bp)? */
		vm_prog_insn(&p, VMSTACK_VM4_MOV, 2, a->shim_sp >= 0 ? 1 : 15, 0);
		vm_prog_alu_k(&p, VMSTACK_VM4_ADD_K, 2, a->shim_sp >= 0 ? a->shim_sp : a->shim_bp);
		vm_prog_jmp(&p, VMSTACK_VM4_JNE, 8, 2, foreign);
	}
	ld64(&p, 8, 8, L->fr_previous);
	vm_prog_bind(&p, done);
	/* Its shim on top (entered, no Python frame pushed yet): the native frame stays. */
	vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 13, 0, empty);
	leave(&p, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(&p, empty);
	leave(&p, VMSTACK_VM4_X_EMPTY);
	/*
	 * Another activation's shim: this one has not pushed its own yet, or
	 * has popped it (its first and last instructions). Its native frame
	 * stays; the next activation out starts where this one did.
	 */
	vm_prog_bind(&p, foreign);
	vm_prog_insn(&p, VMSTACK_VM4_UNDO, 0, 0, 0);
	vm_prog_insn(&p, VMSTACK_VM4_MOV, 8, 14, 0);
	leave(&p, VMSTACK_VM4_X_EMPTY);
	vm_prog_bind(&p, bad);
	leave(&p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(&p, nostate);
	leave(&p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);

	return vm_prog_end_loop(&p, d, a->code_start, a->code_end);
}
