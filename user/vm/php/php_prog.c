// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program for PHP 8.2's frames, run by the module at each
 * native frame of execute_ex (Documentation/descriptor4.md).
 *
 * EG(current_execute_data) is the innermost zend_execute_data of the one
 * PHP thread (NTS: executor_globals is a plain global); frames link
 * outwards by prev_execute_data. PHP calls PHP without recursing in C, so
 * one execute_ex activation runs a run of frames, from the innermost down
 * to the one C pushed (zend_call_function for a callback, zend_execute
 * for the main script): that one has ZEND_CALL_TOP in This.u1.type_info,
 * and execute_ex returns to C when it leaves it. Frames of internal
 * functions are C code already on the native stack: hidden, whatever
 * their flags (a C callback pushed by zend_call_function is TOP too, but
 * execute_ex never ran it).
 *
 * Registers kept across runs: r8 the next activation's innermost frame,
 * r10 1 once EG was read (0 in the sample's first run). r12: in the
 * sampled frame only (r4 on entry), until its first user frame is shown:
 * the HYBRID VM keeps execute_data in r14 and the current opline in r15
 * inside execute_ex (detection checked this build's prologue), and writes
 * ex->opline back only where it calls out, so for the frame execute_ex is
 * running when sampled, r15 is its exact opline if r14 is that frame.
 */
#include "vm/php/php.h"

void php_prog(struct vm_prog *p, const struct php_layout *L, uint64_t eg)
{
	vm_label first, loop, user, saved, show, hidden, done, empty, bad;

	vm_prog_init(p);
	first = vm_prog_label(p), empty = vm_prog_label(p);
	loop = vm_prog_label(p), user = vm_prog_label(p), saved = vm_prog_label(p);
	show = vm_prog_label(p), hidden = vm_prog_label(p), done = vm_prog_label(p);
	bad = vm_prog_label(p);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 12, 4, 0);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 10, 0, first);
	vm_prog_mov64(p, 9, eg);
	vm_prog_ld(p, 8, 0, 8, 9, L->eg_current_execute_data, VM_NO_LABEL);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	/* No frame at all (starting, ending): the native frame stays. */
	vm_prog_bind(p, first);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 8, 0, empty);
	vm_prog_bind(p, loop);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 8, 0, done);
	/* No function (the engine's own walkers skip such frames), or C. */
	vm_prog_ld(p, 8, 0, 3, 8, L->ex_func, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 3, 0, hidden);
	vm_prog_ld(p, 1, 0, 4, 3, L->fn_type, VM_NO_LABEL);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 4, L->fn_internal, hidden);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 4, L->fn_user, user);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 4, L->fn_eval, user);
	vm_prog_ja(p, bad);
	vm_prog_bind(p, user);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 12, 0, saved);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 12, 0, 0);
	vm_prog_ldreg(p, 4, VMSTACK_VM_REG_R14);
	vm_prog_jmp(p, VMSTACK_VM4_JNE, 4, 8, saved);
	vm_prog_ldreg(p, 4, VMSTACK_VM_REG_R15);
	vm_prog_ja(p, show);
	vm_prog_bind(p, saved);
	vm_prog_ld(p, 8, 0, 4, 8, L->ex_opline, VM_NO_LABEL);
	vm_prog_bind(p, show);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_ld(p, 4, 0, 4, 8, L->ex_call_info, VM_NO_LABEL);
	vm_prog_ld(p, 8, 0, 8, 8, L->ex_prev, VM_NO_LABEL);
	vm_prog_jmp64(p, VMSTACK_VM4_JSET_K, 4, L->call_top, 5, done);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, hidden);
	vm_prog_ld(p, 8, 0, 8, 8, L->ex_prev, VM_NO_LABEL);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, done);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(p, empty);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_EMPTY);
	vm_prog_bind(p, bad);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
}
