// SPDX-License-Identifier: GPL-2.0
/*
 * The interpreter of ABI 4 VM programs: one run per VM activation the
 * user walk meets. Runs in the sample handler (interrupt or NMI context):
 * no lock, no allocation, every read of the target nofault through the
 * sample's budgets (vmstack_vm_read()). Nothing proves a program ends, so
 * every run is bounded here instead: VMSTACK_VM4_RUN_STEPS instructions a
 * run, VMSTACK_VM4_SAMPLE_STEPS over the sample's runs, the walk's
 * deadline looked at every VMSTACK_VM4_CLOCK_STEPS steps (instructions
 * that read nothing never reach vmstack_walk_read()'s own look), and
 * max_frames frames a run. The program writes only its registers and the
 * sample's words. Operands are trusted as vmstack_vm_desc4_check() left
 * them: every index below is in bounds by that check.
 */
#include "vm_prog.h"
#include "vm_walk.h"

/* Steps between two looks at the clock (a power of 2). */
#define VMSTACK_VM4_CLOCK_STEPS	256
/*
 * An instruction's outcome when the run goes on with the next one, or
 * (a load that failed, with a fail edge) at the load's jump target; any
 * other ends the run.
 */
#define VMSTACK_VM4_GO		(-1)
#define VMSTACK_VM4_FAILED	(-2)

/* Why a read of the run failed, as the ABI's CUT reasons say it. */
static int vmstack_vm_prog_read_cut(const struct vmstack_walk *w)
{
	if (w->flags & VMSTACK_SF_BUDGET)
		return VMSTACK_VM4_X_CUT + VMSTACK_VMB_BUDGET;
	if (w->faults >= VMSTACK_MAX_VM_FAULTS)
		return VMSTACK_VM4_X_CUT + VMSTACK_VMB_FAULTS;
	return VMSTACK_VM4_X_CUT + VMSTACK_VMB_READ;
}

/*
 * LD*: the @size bytes at @addr into *@v, zero-extended, or with @sign
 * sign-extended. False if the read failed (*@v unchanged).
 */
static bool vmstack_vm_prog_load(struct vmstack_walk *w, unsigned long addr,
				 unsigned int size, bool sign, u64 *v)
{
	union {
		u8 b;
		u16 h;
		u32 w;
		u64 q;
	} x;

	if (!vmstack_vm_read(w, &x, addr, size))
		return false;
	switch (size) {
	case 1:
		*v = sign ? (u64)(s64)(s8)x.b : x.b;
		break;
	case 2:
		*v = sign ? (u64)(s64)(s16)x.h : x.h;
		break;
	case 4:
		*v = sign ? (u64)(s64)(s32)x.w : x.w;
		break;
	default:
		*v = x.q;
	}
	return true;
}

/* The bytes a load opcode reads, and whether it sign-extends. */
static unsigned int vmstack_vm_prog_ld_size(u8 op, bool *sign)
{
	*sign = op >= VMSTACK_VM4_LD8_S;
	switch (op) {
	case VMSTACK_VM4_LD8:
	case VMSTACK_VM4_LD8_S:
		return 1;
	case VMSTACK_VM4_LD16:
	case VMSTACK_VM4_LD16_S:
		return 2;
	case VMSTACK_VM4_LD32:
	case VMSTACK_VM4_LD32_S:
		return 4;
	default:
		return 8;
	}
}

/*
 * The opcodes come in pairs, a register form then its _K form, from MOV
 * to RSH_K and from JEQ to JSET_K (the ABI's order, fixed in 4.0): the
 * interpreter tells them apart by their distance from the first.
 * test_vm_prog.c runs both forms of each.
 */
/* Is conditional jump @op a _K form (v is imm)? JSLT_K has only that one. */
static bool vmstack_vm_prog_jmp_k(u8 op)
{
	return ((op - VMSTACK_VM4_JEQ) & 1) || op == VMSTACK_VM4_JSLT_K;
}

/* A conditional jump's test: dst against v (src, or imm in the _K form). */
static bool vmstack_vm_prog_cond(u8 op, u64 a, u64 v)
{
	switch (op) {
	case VMSTACK_VM4_JEQ:
	case VMSTACK_VM4_JEQ_K:
		return a == v;
	case VMSTACK_VM4_JNE:
	case VMSTACK_VM4_JNE_K:
		return a != v;
	case VMSTACK_VM4_JGT:
	case VMSTACK_VM4_JGT_K:
		return a > v;
	case VMSTACK_VM4_JGE:
	case VMSTACK_VM4_JGE_K:
		return a >= v;
	case VMSTACK_VM4_JLT:
	case VMSTACK_VM4_JLT_K:
		return a < v;
	case VMSTACK_VM4_JLE:
	case VMSTACK_VM4_JLE_K:
		return a <= v;
	case VMSTACK_VM4_JSET:
	case VMSTACK_VM4_JSET_K:
		return a & v;
	default:	/* JSLT_K */
		return (s64)a < (s64)v;
	}
}

/*
 * ALU: dst OP v. The register and _K forms of an operation differ only
 * in v, so @op is the register form's.
 */
static u64 vmstack_vm_prog_alu(u8 op, u64 a, u64 v)
{
	switch (op) {
	case VMSTACK_VM4_MOV:
		return v;
	case VMSTACK_VM4_ADD:
		return a + v;
	case VMSTACK_VM4_SUB:
		return a - v;
	case VMSTACK_VM4_MUL:
		return a * v;
	case VMSTACK_VM4_AND:
		return a & v;
	case VMSTACK_VM4_OR:
		return a | v;
	case VMSTACK_VM4_XOR:
		return a ^ v;
	case VMSTACK_VM4_LSH:
		return a << (v & 63);
	default:	/* RSH */
		return a >> (v & 63);
	}
}

/* What a run counts, and what MARK remembered for UNDO. */
struct vmstack_vm_run {
	unsigned int frames;		/* emitted, against max_frames */
	unsigned int mark_n, mark_frames;
	u16 mark_unverified;		/* VMSTACK_SF_VM_UNVERIFIED at MARK */
};

/*
 * EMIT_*: one frame of @words words (@word, and for a script frame its
 * PC @pc). VMSTACK_VM4_GO if stored; else the run's end: CUT + DEPTH past
 * max_frames, or X_SHOWN when ips[] is full (the walk ends there).
 */
static int vmstack_vm_prog_emit(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				struct vmstack_vm_run *run, u64 word, unsigned int words,
				u64 pc, u64 *r)
{
	if (run->frames == d->max_frames)
		return VMSTACK_VM4_X_CUT + VMSTACK_VMB_DEPTH;
	run->frames++;
	if (vmstack_vm_emit(w, word) && (words == 1 || vmstack_vm_emit(w, pc)))
		return VMSTACK_VM4_GO;
	/* No AR: nothing more is read for a stack that cannot grow. */
	r[1] = 0;
	return VMSTACK_VM4_X_SHOWN;
}

/*
 * One instruction that neither jumps nor ends the run by itself:
 * VMSTACK_VM4_GO, or the run's end (a failed read, a frame too many, ips[] full).
 */
static int vmstack_vm_prog_step(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				struct vmstack_vm_run *run, const struct vmstack_vm_insn *in,
				u64 *r)
{
	unsigned int dst = in->regs & 0xf, src = in->regs >> 4, size;
	u64 k = (u64)(s64)in->imm;
	bool sign;

	switch (in->op) {
	case VMSTACK_VM4_LDC:
		r[dst] = d->consts[in->imm];
		return VMSTACK_VM4_GO;
	case VMSTACK_VM4_LDREG:
		r[dst] = w->regs[in->imm];
		return VMSTACK_VM4_GO;
	case VMSTACK_VM4_ARSH_K:
		r[dst] = (u64)((s64)r[dst] >> (in->imm & 63));
		return VMSTACK_VM4_GO;
	case VMSTACK_VM4_LD8 ... VMSTACK_VM4_LD32_S:
		size = vmstack_vm_prog_ld_size(in->op, &sign);
		if (vmstack_vm_prog_load(w, (unsigned long)(r[src] + k), size, sign, &r[dst]))
			return VMSTACK_VM4_GO;
		/*
		 * A fail edge: the program goes on elsewhere (a walk that
		 * falls back). Its cost stays bounded: the failed read was
		 * counted, and past the fault cap or the budget a read fails
		 * without being tried.
		 */
		return in->off ? VMSTACK_VM4_FAILED : vmstack_vm_prog_read_cut(w);
	case VMSTACK_VM4_EMIT_SCRIPT:
		return vmstack_vm_prog_emit(w, d, run, vmstack_vm_word(w, d, VMSTACK_VMW_SCRIPT, r[dst]),
					    2, r[src], r);
	case VMSTACK_VM4_EMIT_BUILTIN:
		return vmstack_vm_prog_emit(w, d, run, vmstack_vm_word(w, d, VMSTACK_VMW_BUILTIN, r[dst]),
					    1, 0, r);
	case VMSTACK_VM4_EMIT_UNVERIFIED:
		w->flags |= VMSTACK_SF_VM_UNVERIFIED;
		return vmstack_vm_prog_emit(w, d, run,
					    vmstack_vm_word(w, d, VMSTACK_VMW_UNVERIFIED, (u64)in->imm),
					    1, 0, r);
	case VMSTACK_VM4_EMIT_JIT:
		return vmstack_vm_prog_emit(w, d, run, vmstack_vm_word(w, d, VMSTACK_VMW_JIT, r[dst]),
					    1, 0, r);
	case VMSTACK_VM4_MARK:
		run->mark_n = w->n;
		run->mark_frames = run->frames;
		run->mark_unverified = w->flags & VMSTACK_SF_VM_UNVERIFIED;
		return VMSTACK_VM4_GO;
	case VMSTACK_VM4_UNDO:
		w->n = run->mark_n;
		run->frames = run->mark_frames;
		w->flags = (w->flags & ~VMSTACK_SF_VM_UNVERIFIED) | run->mark_unverified;
		return VMSTACK_VM4_GO;
	default:
		/* ALU, MOV .. RSH_K: each _K opcode follows its register form. */
		if ((in->op - VMSTACK_VM4_MOV) & 1)
			r[dst] = vmstack_vm_prog_alu(in->op - 1, r[dst], k);
		else
			r[dst] = vmstack_vm_prog_alu(in->op, r[dst], r[src]);
		return VMSTACK_VM4_GO;
	}
}

/* The run proper: the EXIT immediate or why it was cut. */
static int vmstack_vm_prog_exec(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				u64 *r)
{
	/* A run begins marked: UNDO without MARK drops the run's frames. */
	struct vmstack_vm_run run = {
		.mark_n = w->n,
		.mark_unverified = w->flags & VMSTACK_SF_VM_UNVERIFIED,
	};
	unsigned int pc = 0, steps;
	int end;

	for (steps = 0; steps < VMSTACK_VM4_RUN_STEPS; steps++) {
		const struct vmstack_vm_insn *in = &d->prog[pc++];

		if (w->vm_steps >= VMSTACK_VM4_SAMPLE_STEPS)
			break;
		/* A loop of ALU and jumps reads nothing: the clock is looked at here. */
		if (!(++w->vm_steps & (VMSTACK_VM4_CLOCK_STEPS - 1)) &&
		    vmstack_walk_clock() >= w->deadline) {
			w->reads_left = 0;
			w->flags |= VMSTACK_SF_BUDGET;
			return VMSTACK_VM4_X_CUT + VMSTACK_VMB_BUDGET;
		}
		switch (in->op) {
		case VMSTACK_VM4_EXIT:
			return in->imm;
		case VMSTACK_VM4_JA:
			pc += in->off;
			break;
		case VMSTACK_VM4_JEQ ... VMSTACK_VM4_JSLT_K:
			if (vmstack_vm_prog_cond(in->op, r[in->regs & 0xf],
						 vmstack_vm_prog_jmp_k(in->op) ?
						 (u64)(s64)in->imm : r[in->regs >> 4]))
				pc += in->off;
			break;
		default:
			end = vmstack_vm_prog_step(w, d, &run, in, r);
			if (end == VMSTACK_VM4_FAILED)
				pc += in->off;
			else if (end != VMSTACK_VM4_GO)
				return end;
		}
	}
	return VMSTACK_VM4_X_CUT + VMSTACK_VMB_STEPS;
}

int vmstack_vm_prog_run(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
			u64 r[VMSTACK_VM4_REGS])
{
	u64 *carry = w->vm_carry[d - w->vms];
	int end = vmstack_vm_prog_exec(w, d, r);
	unsigned int i;

	/* Whatever the end, the next activation sees what this one left. */
	for (i = 0; i < VMSTACK_VM4_CARRIED; i++)
		carry[i] = r[VMSTACK_VM4_CARRY_FIRST + i];
	return end;
}
