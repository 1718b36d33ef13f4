// SPDX-License-Identifier: GPL-2.0
/*
 * The check a VM descriptor passes before a session takes it: every field
 * the handler uses is in range, and the combinations it relies on hold.
 * Moved from the module (ABI 3.6's vm_check.c) with ABI 4: the translator
 * (desc3_prog.c) compiles only what 3.6 would have taken.
 */
#include <stddef.h>
#include <stdint.h>

#include "vm/desc3_prog.h"

/* x86-64 with 4-level paging: the highest user page's end. */
#define VMSTACK_USER_MAX	((1UL << 47) - 4096)

const char *vmstack_desc3_check(const struct vmstack_vm_desc *d)
{
	size_t i;

	if (d->code_start >= d->code_end || d->code_end > VMSTACK_USER_MAX)
		return "VM code range empty or not in user space";
	if (d->flags & ~VMSTACK_VM_F_ALL)
		return "VM descriptor: unknown flags";
	if (d->state_from >= __VMSTACK_VM_STATE_MAX || d->link >= __VMSTACK_VM_LINK_MAX ||
	    d->top_reg >= __VMSTACK_VM_REG_MAX || d->pc_reg >= __VMSTACK_VM_REG_MAX ||
	    !d->max_frames || d->max_frames > VMSTACK_VM_MAX_FRAMES)
		return "VM descriptor field out of range";
	/* Without a state, only rbp is known in every native frame. */
	if (d->state_from == VMSTACK_VM_STATE_NONE && d->top_reg != VMSTACK_VM_REG_RBP)
		return "VM without a state: its top frame must be in rbp";
	if (d->state_from == VMSTACK_VM_STATE_GLOBAL &&
	    (!d->state_addr || d->state_addr > VMSTACK_USER_MAX - 8))
		return "VM state address not in user space";
	if (d->state_from == VMSTACK_VM_STATE_THREAD &&
	    (!d->state_addr || (d->state_addr & 7) || d->state_addr > VMSTACK_USER_MAX - 8 ||
	     !d->thr_max || d->thr_max > VMSTACK_VM_THREADS_MAX))
		return "VM descriptor: thread list fields out of range";
	/* A link type (link & type_mask) indexes the 32-bit type masks. */
	if (d->link == VMSTACK_VM_LINK_TAGGED_DELTA &&
	    (d->state_from == VMSTACK_VM_STATE_NONE ||
	     !d->slot || d->slot > 64 || d->insn_bits > 16 || d->insn_shift > 31 ||
	     !d->stack_max || d->stack_max > (1U << 30) || d->type_mask > 31))
		return "VM descriptor: tagged-delta link fields out of range";
	/* Compiled code has no unwind rules: the AR must lead on. */
	if ((d->flags & VMSTACK_VM_F_JIT) &&
	    ((d->flags & VMSTACK_VM_F_NATIVE_STEP) || d->jit_reg >= __VMSTACK_VM_REG_MAX ||
	     d->ar_mask >= 4096))
		return "VM descriptor: JIT fields out of range";
	/* The anchor: a register, or a pointer variable in user space. */
	if ((d->flags & VMSTACK_VM_F_JIT) && d->jit_reg == VMSTACK_VM_REG_NONE &&
	    (!d->jit_anchor_ptr || (d->jit_anchor_ptr & 7) ||
	     d->jit_anchor_ptr > VMSTACK_USER_MAX - 8))
		return "VM descriptor: JIT anchor neither a register nor a pointer in user space";
	/* The handler's AR is the state's: a state in an AR, a link to it. */
	if ((d->flags & VMSTACK_VM_F_JIT_EXIT) &&
	    (!(d->flags & VMSTACK_VM_F_JIT) || d->state_from != VMSTACK_VM_STATE_AR ||
	     !(d->flags & VMSTACK_VM_F_AR_CHAIN) ||
	     (d->jit_reg != VMSTACK_VM_REG_NONE &&
	      (d->exit_anchor_off < 0 || (d->exit_anchor_off & 7)))))
		return "VM descriptor: trace exits need F_JIT, a state in the AR, its chain and an anchor saved on the stack";
	if (d->exit_entry_end &&
	    (!(d->flags & VMSTACK_VM_F_JIT_EXIT) || d->exit_entry_start < d->code_start ||
	     d->exit_entry_start >= d->exit_entry_end || d->exit_entry_end > d->code_end ||
	     d->exit_entry_end - d->exit_entry_start > VMSTACK_VM_EXIT_ENTRY_MAX))
		return "VM descriptor: the return to the interpreter lies outside its code or spans too much";
	if ((d->flags & VMSTACK_VM_F_JIT_AREAS) &&
	    (!(d->flags & VMSTACK_VM_F_JIT) || !d->jit_areas_max ||
	     d->jit_areas_max > VMSTACK_VM_JIT_AREAS_MAX))
		return "VM descriptor: code areas need F_JIT and 1..64 areas";
	if ((d->flags & VMSTACK_VM_F_CONT_PC) && d->link != VMSTACK_VM_LINK_TAGGED_DELTA)
		return "VM descriptor: a continuation's PC needs tagged delta links";
	/* G is the state's. */
	if ((d->flags & VMSTACK_VM_F_VM_STATE) &&
	    (d->state_from == VMSTACK_VM_STATE_NONE || d->vms_jit_lo > d->vms_jit_hi ||
	     (int64_t)d->vms_jit_hi - d->vms_jit_lo > INT32_MAX))
		return "VM descriptor: a VM state frame needs a state, and a range lo <= hi of at most 2^31 - 1";
	/* It drops an activation and goes on from the registers it saved. */
	if ((d->flags & VMSTACK_VM_F_AR_EMPTY) &&
	    (d->state_from != VMSTACK_VM_STATE_AR || (d->flags & VMSTACK_VM_F_NATIVE_STEP)))
		return "VM descriptor: empty activations need an AR and its saved registers";
	/* The chain starts in a state; a VM in C keeps an unlinked frame. */
	if ((d->flags & VMSTACK_VM_F_AR_CHAIN) &&
	    (d->state_from == VMSTACK_VM_STATE_NONE ||
	     (d->state_from == VMSTACK_VM_STATE_AR && (d->flags & VMSTACK_VM_F_NATIVE_STEP))))
		return "VM descriptor: unlinked activations need a state, and an AR's saved registers or F_NATIVE_STEP";
	if ((d->flags & VMSTACK_VM_F_AR_CHAIN) &&
	    (!d->ar_chain_max || d->ar_chain_max > VMSTACK_VM_AR_CHAIN_MAX ||
	     d->ar_mask >= 4096))
		return "VM descriptor: activation chain fields out of range";
	if ((d->flags & VMSTACK_VM_F_JIT_NEAR) &&
	    (!(d->flags & VMSTACK_VM_F_JIT) || !d->jit_near_max ||
	     d->jit_near_max > VMSTACK_VM_JIT_NEAR_MAX))
		return "VM descriptor: near compiled code needs F_JIT and 1..32 objects";
	/* A PC lies in code that follows a tagged link, by a function's pointer to it. */
	if ((d->flags & VMSTACK_VM_F_PC_CHECK) &&
	    (d->link != VMSTACK_VM_LINK_TAGGED_DELTA || (d->flags & VMSTACK_VM_F_FUNC_IDENT) ||
	     !d->pc_unit || d->pc_unit > 8))
		return "VM descriptor: PC checks need tagged links, functions that point to their code, and a PC unit of 1..8 bytes";
	/* A kind word is no byte to carry. */
	if ((d->flags & VMSTACK_VM_F_BUILTIN_KIND) &&
	    (d->flags & (VMSTACK_VM_F_KIND_WORD | VMSTACK_VM_F_NO_BUILTINS)))
		return "VM descriptor: builtins by kind need kind bytes and builtins";
	/* Zero, so that a later minor may use it. */
	for (i = 0; i < sizeof(d->pad_3_6); i++)
		if (d->pad_3_6[i])
			return "VM descriptor: padding not zero";
	if ((d->flags & VMSTACK_VM_F_CONT_BOTTOM) &&
	    (d->link != VMSTACK_VM_LINK_TAGGED_DELTA || d->cont_type > d->type_mask))
		return "VM descriptor: continuation bottom needs a tagged link type";
	return NULL;
}
