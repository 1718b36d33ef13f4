// SPDX-License-Identifier: GPL-2.0
/*
 * The check an ABI 4 VM descriptor passes at VM_ADD: every field in
 * range and every instruction well-formed (a known opcode, operands the
 * program has, jumps that land in it, a last instruction that cannot
 * fall off its end, unused fields zero so that a later minor may give
 * them a meaning). Nothing here proves what a program does: the
 * interpreter (vm_prog.c) bounds every run instead. Pure code on the uapi
 * header alone: the module, the recorder and the unit tests build it.
 */
#ifdef __KERNEL__
#include <linux/uaccess.h>
/* The end of user space (4- or 5-level paging alike). */
#define VMSTACK_VM4_USER_END	TASK_SIZE_MAX
#else
#include <stdbool.h>
#include <stddef.h>
/*
 * The recorder cannot know the kernel's paging mode: it allows the
 * largest user space (5-level paging) and the module decides.
 */
#define VMSTACK_VM4_USER_END	((1ULL << 56) - 4096)
#endif
#include "vm_prog_check.h"

/* What an instruction's fields mean, by opcode; a field not used must be 0. */
#define VMSTACK_OPND_KNOWN	(1U << 0)
#define VMSTACK_OPND_DST	(1U << 1)
#define VMSTACK_OPND_SRC	(1U << 2)
#define VMSTACK_OPND_OFF	(1U << 3)	/* a jump */
#define VMSTACK_OPND_IMM	(1U << 4)	/* any value */
#define VMSTACK_OPND_CONST	(1U << 5)	/* imm indexes consts */
#define VMSTACK_OPND_REG	(1U << 6)	/* imm is an enum vmstack_vm_reg */
#define VMSTACK_OPND_UNV	(1U << 7)	/* imm is an enum vmstack_vmw_unverified */
#define VMSTACK_OPND_EXIT	(1U << 8)	/* imm is an enum vmstack_vm4_exit */
#define VMSTACK_OPND_FAIL	(1U << 9)	/* off, if not 0: a load's fail edge */

#define K	VMSTACK_OPND_KNOWN
#define D	(K | VMSTACK_OPND_DST)
#define DS	(D | VMSTACK_OPND_SRC)
#define DI	(D | VMSTACK_OPND_IMM)
#define DSI	(DS | VMSTACK_OPND_IMM)
#define LD	(DSI | VMSTACK_OPND_FAIL)

static const unsigned short vmstack_vm4_opnd[__VMSTACK_VM4_OP_MAX] = {
	[VMSTACK_VM4_MOV] = DS,		[VMSTACK_VM4_MOV_K] = DI,
	[VMSTACK_VM4_ADD] = DS,		[VMSTACK_VM4_ADD_K] = DI,
	[VMSTACK_VM4_SUB] = DS,		[VMSTACK_VM4_SUB_K] = DI,
	[VMSTACK_VM4_MUL] = DS,		[VMSTACK_VM4_MUL_K] = DI,
	[VMSTACK_VM4_AND] = DS,		[VMSTACK_VM4_AND_K] = DI,
	[VMSTACK_VM4_OR] = DS,		[VMSTACK_VM4_OR_K] = DI,
	[VMSTACK_VM4_XOR] = DS,		[VMSTACK_VM4_XOR_K] = DI,
	[VMSTACK_VM4_LSH] = DS,		[VMSTACK_VM4_LSH_K] = DI,
	[VMSTACK_VM4_RSH] = DS,		[VMSTACK_VM4_RSH_K] = DI,
	[VMSTACK_VM4_ARSH_K] = DI,
	[VMSTACK_VM4_LDC] = D | VMSTACK_OPND_CONST,
	[VMSTACK_VM4_LDREG] = D | VMSTACK_OPND_REG,
	[VMSTACK_VM4_LD8] = LD,		[VMSTACK_VM4_LD16] = LD,
	[VMSTACK_VM4_LD32] = LD,	[VMSTACK_VM4_LD64] = LD,
	[VMSTACK_VM4_LD8_S] = LD,	[VMSTACK_VM4_LD16_S] = LD,
	[VMSTACK_VM4_LD32_S] = LD,
	[VMSTACK_VM4_JA] = K | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JEQ] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JEQ_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JNE] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JNE_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JGT] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JGT_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JGE] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JGE_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JLT] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JLT_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JLE] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JLE_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JSET] = DS | VMSTACK_OPND_OFF,	[VMSTACK_VM4_JSET_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_JSLT_K] = DI | VMSTACK_OPND_OFF,
	[VMSTACK_VM4_EMIT_SCRIPT] = DS,
	[VMSTACK_VM4_EMIT_BUILTIN] = D,
	[VMSTACK_VM4_EMIT_UNVERIFIED] = K | VMSTACK_OPND_UNV,
	[VMSTACK_VM4_EMIT_JIT] = D,
	[VMSTACK_VM4_MARK] = K,
	[VMSTACK_VM4_UNDO] = K,
	[VMSTACK_VM4_EXIT] = K | VMSTACK_OPND_EXIT,
};

#undef K
#undef D
#undef DS
#undef DI
#undef DSI
#undef LD

/* An EXIT immediate the module acts on: SHOWN, EMPTY, or CUT + a reason. */
static bool vmstack_vm4_exit_ok(__s32 imm)
{
	return imm == VMSTACK_VM4_X_SHOWN || imm == VMSTACK_VM4_X_EMPTY ||
	       (imm > VMSTACK_VM4_X_CUT && imm < __VMSTACK_VM4_X_MAX);
}

/* Instruction @i of @d: NULL if well-formed, else why not. */
static const char *vmstack_vm4_insn_check(const struct vmstack_vm_desc4 *d, unsigned int i)
{
	const struct vmstack_vm_insn *in = &d->prog[i];
	unsigned int use;
	long target;

	if (in->op >= __VMSTACK_VM4_OP_MAX || !vmstack_vm4_opnd[in->op])
		return "VM program: unknown opcode";
	use = vmstack_vm4_opnd[in->op];
	if ((!(use & VMSTACK_OPND_DST) && (in->regs & 0xf)) ||
	    (!(use & VMSTACK_OPND_SRC) && (in->regs >> 4)) ||
	    (!(use & (VMSTACK_OPND_OFF | VMSTACK_OPND_FAIL)) && in->off) ||
	    (!(use & (VMSTACK_OPND_IMM | VMSTACK_OPND_CONST | VMSTACK_OPND_REG |
		      VMSTACK_OPND_UNV | VMSTACK_OPND_EXIT)) && in->imm))
		return "VM program: an operand the instruction does not use is not 0";
	if ((use & VMSTACK_OPND_OFF) || ((use & VMSTACK_OPND_FAIL) && in->off)) {
		target = (long)i + 1 + in->off;
		if (target < 0 || target >= d->prog_len)
			return "VM program: a jump lands outside the program";
	}
	if ((use & VMSTACK_OPND_CONST) && (in->imm < 0 || (__u32)in->imm >= d->nr_consts))
		return "VM program: LDC of a constant the descriptor does not have";
	if ((use & VMSTACK_OPND_REG) && (in->imm < 0 || in->imm >= __VMSTACK_VM_REG_MAX))
		return "VM program: LDREG of an unknown register";
	/* VMSTACK_VMU_EDGE is the last reason ABI 4.0 knows. */
	if ((use & VMSTACK_OPND_UNV) && (in->imm < VMSTACK_VMU_NOT_FUNC || in->imm > VMSTACK_VMU_EDGE))
		return "VM program: EMIT_UNVERIFIED with an unknown reason";
	if ((use & VMSTACK_OPND_EXIT) && !vmstack_vm4_exit_ok(in->imm))
		return "VM program: EXIT with an unknown exit";
	return NULL;
}

/* The fixed part: ranges, limits, the compiled-code lookup's fields. */
static const char *vmstack_vm4_fields_check(const struct vmstack_vm_desc4 *d)
{
	unsigned int i, used = 0;

	if (d->flags & ~VMSTACK_VM4_F_ALL)
		return "VM descriptor: unknown flags";
	for (i = 0; i < VMSTACK_VM4_RANGES; i++) {
		if (!d->ranges[i].start && !d->ranges[i].end)
			continue;
		if (d->ranges[i].start >= d->ranges[i].end ||
		    d->ranges[i].end > VMSTACK_VM4_USER_END)
			return "VM descriptor: an entry range is empty or not in user space";
		used++;
	}
	/* Compiled code is found through a VM's activations too (its AR). */
	if (!used)
		return "VM descriptor: no entry range";
	if (!d->max_frames || d->max_frames > VMSTACK_VM_MAX_FRAMES ||
	    !d->prog_len || d->prog_len > VMSTACK_VM4_PROG_MAX ||
	    d->nr_consts > VMSTACK_VM4_CONSTS || d->jit_reg >= __VMSTACK_VM_REG_MAX)
		return "VM descriptor field out of range";
	for (i = 0; i < sizeof(d->pad0); i++)
		if (d->pad0[i])
			return "VM descriptor: padding not zero";
	if (!(d->flags & VMSTACK_VM4_F_JIT_AREAS) && (d->jit_area_off || d->jit_areas_max))
		return "VM descriptor: code area fields without F4_JIT_AREAS";
	for (i = d->nr_consts; i < VMSTACK_VM4_CONSTS; i++)
		if (d->consts[i])
			return "VM descriptor: a constant past nr_consts is not 0";
	if (!(d->flags & VMSTACK_VM4_F_JIT)) {
		if (d->flags & (VMSTACK_VM4_F_JIT_NEAR | VMSTACK_VM4_F_JIT_REF32 |
				VMSTACK_VM4_F_JIT_AREAS))
			return "VM descriptor: compiled-code flags without F4_JIT";
		return NULL;
	}
	/* Compiled code has no unwind rules: the AR must lead on. */
	if (d->flags & VMSTACK_VM4_F_NATIVE_STEP)
		return "VM descriptor: compiled code needs the caller's registers, not F4_NATIVE_STEP";
	if (d->jit_reg == VMSTACK_VM_REG_NONE &&
	    (!d->jit_anchor_ptr || (d->jit_anchor_ptr & 7) ||
	     d->jit_anchor_ptr > VMSTACK_VM4_USER_END - 8))
		return "VM descriptor: JIT anchor neither a register nor a pointer in user space";
	if ((d->flags & VMSTACK_VM4_F_JIT_NEAR) &&
	    (!d->jit_near_max || d->jit_near_max > VMSTACK_VM_JIT_NEAR_MAX))
		return "VM descriptor: near compiled code needs 1..32 objects";
	if ((d->flags & VMSTACK_VM4_F_JIT_AREAS) &&
	    (!d->jit_areas_max || d->jit_areas_max > VMSTACK_VM_JIT_AREAS_MAX))
		return "VM descriptor: code areas need 1..64 areas";
	return NULL;
}

const char *vmstack_vm_desc4_check_insn(const struct vmstack_vm_desc4 *d, int *insn)
{
	const struct vmstack_vm_insn *last;
	const char *err;
	unsigned int i;

	if (insn)
		*insn = -1;
	err = vmstack_vm4_fields_check(d);
	if (err)
		return err;
	for (i = 0; i < d->prog_len; i++) {
		err = vmstack_vm4_insn_check(d, i);
		if (err) {
			if (insn)
				*insn = (int)i;
			return err;
		}
	}
	/* Every path ends at an EXIT: the run cannot fall off the end. */
	last = &d->prog[d->prog_len - 1];
	if (last->op != VMSTACK_VM4_EXIT && last->op != VMSTACK_VM4_JA) {
		if (insn)
			*insn = d->prog_len - 1;
		return "VM program: the last instruction is neither EXIT nor JA";
	}
	for (i = d->prog_len; i < VMSTACK_VM4_PROG_MAX; i++) {
		const struct vmstack_vm_insn *in = &d->prog[i];

		if (in->op || in->regs || in->off || in->imm) {
			if (insn)
				*insn = (int)i;
			return "VM program: an instruction past prog_len is not 0";
		}
	}
	return NULL;
}

const char *vmstack_vm_desc4_check(const struct vmstack_vm_desc4 *d)
{
	return vmstack_vm_desc4_check_insn(d, NULL);
}
