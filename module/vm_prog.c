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
/* An emitted frame's outcome when the run goes on; any other ends it. */
#define VMSTACK_VM4_GO		(-1)

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
 * sign-extended. False if the read failed (*@v unchanged). Each case of
 * the run's switch calls it with constants: inlined, it is one read and
 * one extension.
 */
static inline bool vmstack_vm_prog_load(struct vmstack_walk *w, unsigned long addr,
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
	if (size == 1)
		*v = sign ? (u64)(s64)(s8)x.b : x.b;
	else if (size == 2)
		*v = sign ? (u64)(s64)(s16)x.h : x.h;
	else if (size == 4)
		*v = sign ? (u64)(s64)(s32)x.w : x.w;
	else
		*v = x.q;
	return true;
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
 * The run proper: the EXIT immediate or why it was cut. One switch over
 * every opcode: the module is built without jump tables (retpolines), so
 * each nested switch a dispatch went through was another tree of
 * compares, and the instruction counts live in registers, written back
 * to the walk once, when the run ends.
 */
static int vmstack_vm_prog_exec(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				u64 *r)
{
	/* A run begins marked: UNDO without MARK drops the run's frames. */
	struct vmstack_vm_run run = {
		.mark_n = w->n,
		.mark_unverified = w->flags & VMSTACK_SF_VM_UNVERIFIED,
	};
	u32 steps = w->vm_steps, left;
	unsigned int pc = 0, dst;
	int end;
	bool ok;

	left = steps < VMSTACK_VM4_SAMPLE_STEPS ? VMSTACK_VM4_SAMPLE_STEPS - steps : 0;
	if (left > VMSTACK_VM4_RUN_STEPS)
		left = VMSTACK_VM4_RUN_STEPS;
	for (;; left--) {
		const struct vmstack_vm_insn *in;
		u64 k;

		if (!left) {
			end = VMSTACK_VM4_X_CUT + VMSTACK_VMB_STEPS;
			break;
		}
		/* A loop of ALU and jumps reads nothing: the clock is looked at here. */
		if (!(++steps & (VMSTACK_VM4_CLOCK_STEPS - 1)) &&
		    vmstack_walk_clock() >= w->deadline) {
			w->reads_left = 0;
			w->flags |= VMSTACK_SF_BUDGET;
			end = VMSTACK_VM4_X_CUT + VMSTACK_VMB_BUDGET;
			break;
		}
		in = &d->prog[pc++];
		k = (u64)(s64)in->imm;
		dst = in->regs & 0xf;
#define SRC	r[in->regs >> 4]
#define JUMP_IF(c)	do { if (c) pc += in->off; } while (0)
		switch (in->op) {
		case VMSTACK_VM4_MOV:
			r[dst] = SRC;
			continue;
		case VMSTACK_VM4_MOV_K:
			r[dst] = k;
			continue;
		case VMSTACK_VM4_ADD:
			r[dst] += SRC;
			continue;
		case VMSTACK_VM4_ADD_K:
			r[dst] += k;
			continue;
		case VMSTACK_VM4_SUB:
			r[dst] -= SRC;
			continue;
		case VMSTACK_VM4_SUB_K:
			r[dst] -= k;
			continue;
		case VMSTACK_VM4_MUL:
			r[dst] *= SRC;
			continue;
		case VMSTACK_VM4_MUL_K:
			r[dst] *= k;
			continue;
		case VMSTACK_VM4_AND:
			r[dst] &= SRC;
			continue;
		case VMSTACK_VM4_AND_K:
			r[dst] &= k;
			continue;
		case VMSTACK_VM4_OR:
			r[dst] |= SRC;
			continue;
		case VMSTACK_VM4_OR_K:
			r[dst] |= k;
			continue;
		case VMSTACK_VM4_XOR:
			r[dst] ^= SRC;
			continue;
		case VMSTACK_VM4_XOR_K:
			r[dst] ^= k;
			continue;
		case VMSTACK_VM4_LSH:
			r[dst] <<= SRC & 63;
			continue;
		case VMSTACK_VM4_LSH_K:
			r[dst] <<= k & 63;
			continue;
		case VMSTACK_VM4_RSH:
			r[dst] >>= SRC & 63;
			continue;
		case VMSTACK_VM4_RSH_K:
			r[dst] >>= k & 63;
			continue;
		case VMSTACK_VM4_ARSH_K:
			r[dst] = (u64)((s64)r[dst] >> (k & 63));
			continue;
		case VMSTACK_VM4_LDC:
			r[dst] = d->consts[in->imm];
			continue;
		case VMSTACK_VM4_LDREG:
			r[dst] = w->regs[in->imm];
			continue;
		case VMSTACK_VM4_LD8:
			ok = vmstack_vm_prog_load(w, SRC + k, 1, false, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD16:
			ok = vmstack_vm_prog_load(w, SRC + k, 2, false, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD32:
			ok = vmstack_vm_prog_load(w, SRC + k, 4, false, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD64:
			ok = vmstack_vm_prog_load(w, SRC + k, 8, false, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD8_S:
			ok = vmstack_vm_prog_load(w, SRC + k, 1, true, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD16_S:
			ok = vmstack_vm_prog_load(w, SRC + k, 2, true, &r[dst]);
			goto loaded;
		case VMSTACK_VM4_LD32_S:
			ok = vmstack_vm_prog_load(w, SRC + k, 4, true, &r[dst]);
loaded:
			if (ok)
				continue;
			/*
			 * A fail edge: the program goes on elsewhere (a walk
			 * that falls back). Its cost stays bounded: the failed
			 * read was counted, and past the fault cap or the
			 * budget a read fails without being tried.
			 */
			if (in->off) {
				pc += in->off;
				continue;
			}
			end = vmstack_vm_prog_read_cut(w);
			break;
		case VMSTACK_VM4_JA:
			pc += in->off;
			continue;
		case VMSTACK_VM4_JEQ:
			JUMP_IF(r[dst] == SRC);
			continue;
		case VMSTACK_VM4_JEQ_K:
			JUMP_IF(r[dst] == k);
			continue;
		case VMSTACK_VM4_JNE:
			JUMP_IF(r[dst] != SRC);
			continue;
		case VMSTACK_VM4_JNE_K:
			JUMP_IF(r[dst] != k);
			continue;
		case VMSTACK_VM4_JGT:
			JUMP_IF(r[dst] > SRC);
			continue;
		case VMSTACK_VM4_JGT_K:
			JUMP_IF(r[dst] > k);
			continue;
		case VMSTACK_VM4_JGE:
			JUMP_IF(r[dst] >= SRC);
			continue;
		case VMSTACK_VM4_JGE_K:
			JUMP_IF(r[dst] >= k);
			continue;
		case VMSTACK_VM4_JLT:
			JUMP_IF(r[dst] < SRC);
			continue;
		case VMSTACK_VM4_JLT_K:
			JUMP_IF(r[dst] < k);
			continue;
		case VMSTACK_VM4_JLE:
			JUMP_IF(r[dst] <= SRC);
			continue;
		case VMSTACK_VM4_JLE_K:
			JUMP_IF(r[dst] <= k);
			continue;
		case VMSTACK_VM4_JSET:
			JUMP_IF(r[dst] & SRC);
			continue;
		case VMSTACK_VM4_JSET_K:
			JUMP_IF(r[dst] & k);
			continue;
		case VMSTACK_VM4_JSLT_K:
			JUMP_IF((s64)r[dst] < (s64)k);
			continue;
		case VMSTACK_VM4_EMIT_SCRIPT:
			end = vmstack_vm_prog_emit(w, d, &run,
						   vmstack_vm_word(w, d, VMSTACK_VMW_SCRIPT, r[dst]),
						   2, SRC, r);
			break;
		case VMSTACK_VM4_EMIT_BUILTIN:
			end = vmstack_vm_prog_emit(w, d, &run,
						   vmstack_vm_word(w, d, VMSTACK_VMW_BUILTIN, r[dst]),
						   1, 0, r);
			break;
		case VMSTACK_VM4_EMIT_UNVERIFIED:
			w->flags |= VMSTACK_SF_VM_UNVERIFIED;
			end = vmstack_vm_prog_emit(w, d, &run,
						   vmstack_vm_word(w, d, VMSTACK_VMW_UNVERIFIED, k),
						   1, 0, r);
			break;
		case VMSTACK_VM4_EMIT_JIT:
			end = vmstack_vm_prog_emit(w, d, &run,
						   vmstack_vm_word(w, d, VMSTACK_VMW_JIT, r[dst]),
						   1, 0, r);
			break;
		case VMSTACK_VM4_MARK:
			run.mark_n = w->n;
			run.mark_frames = run.frames;
			run.mark_unverified = w->flags & VMSTACK_SF_VM_UNVERIFIED;
			continue;
		case VMSTACK_VM4_UNDO:
			w->n = run.mark_n;
			run.frames = run.mark_frames;
			w->flags = (w->flags & ~VMSTACK_SF_VM_UNVERIFIED) | run.mark_unverified;
			continue;
		default:	/* EXIT: the check allows no other opcode */
			end = in->imm;
			break;
		}
#undef SRC
#undef JUMP_IF
		/* An emitted frame goes on; anything else that broke out ends the run. */
		if (end != VMSTACK_VM4_GO)
			break;
	}
	w->vm_steps = steps;
	return end;
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
