// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program assembler (prog.h). Jumps are kept by label until
 * vm_prog_end(), which knows every label's place: builders write code in
 * the order it reads best, forward jumps included.
 */
#include <stdbool.h>
#include <string.h>

#include "vm/prog.h"

static void fail(struct vm_prog *p, const char *why)
{
	if (!p->err)
		p->err = why;
}

void vm_prog_init(struct vm_prog *p)
{
	memset(p, 0, sizeof(*p));
	memset(p->to, -1, sizeof(p->to));
}

vm_label vm_prog_label(struct vm_prog *p)
{
	if (p->nr_labels == VM_PROG_LABELS) {
		fail(p, "VM program: too many labels");
		return 0;
	}
	p->at[p->nr_labels] = -1;
	return (vm_label)p->nr_labels++;
}

void vm_prog_bind(struct vm_prog *p, vm_label l)
{
	if (l < 0 || (unsigned int)l >= p->nr_labels || p->at[l] >= 0)
		fail(p, "VM program: a label bound twice or never made");
	else
		p->at[l] = (int)p->len;
}

/* Append one instruction; @to is the label it jumps to, or VM_NO_LABEL. */
static void emit(struct vm_prog *p, int op, int dst, int src, int32_t imm, vm_label to)
{
	if (p->len == VMSTACK_VM4_PROG_MAX) {
		fail(p, "VM program: too long");
		return;
	}
	p->insn[p->len] = (struct vmstack_vm_insn){ .op = (uint8_t)op,
		.regs = VMSTACK_VM4_REGS_OF(dst & 15, src & 15), .imm = imm };
	p->to[p->len++] = to;
}

void vm_prog_insn(struct vm_prog *p, int op, int dst, int src, int32_t imm)
{
	emit(p, op, dst, src, imm, VM_NO_LABEL);
}

/*
 * Does dst OP= @imm leave dst as it was? Builders write the ABI 3 fields
 * as they are (an adjustment of 0, a unit of 1): the module need not run
 * what does nothing.
 */
static int alu_k_nothing(int op, int32_t imm)
{
	switch (op) {
	case VMSTACK_VM4_ADD_K: case VMSTACK_VM4_SUB_K: case VMSTACK_VM4_OR_K:
	case VMSTACK_VM4_XOR_K: case VMSTACK_VM4_LSH_K: case VMSTACK_VM4_RSH_K:
	case VMSTACK_VM4_ARSH_K:
		return imm == 0;
	case VMSTACK_VM4_AND_K:
		return imm == -1;
	case VMSTACK_VM4_MUL_K:
		return imm == 1;
	default:
		return 0;
	}
}

void vm_prog_alu_k(struct vm_prog *p, int op, int dst, int32_t imm)
{
	if (!alu_k_nothing(op, imm))
		emit(p, op, dst, 0, imm, VM_NO_LABEL);
}

void vm_prog_alu(struct vm_prog *p, int op, int dst, int src)
{
	if (op != VMSTACK_VM4_MOV || dst != src)
		emit(p, op, dst, src, 0, VM_NO_LABEL);
}

/* Does @v survive as a 32-bit imm sign-extended to 64 bits? */
static int fits_imm(uint64_t v)
{
	return (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
}

/* The index of constant @v, added once. */
static int32_t konst(struct vm_prog *p, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < p->nr_consts; i++)
		if (p->consts[i] == v)
			return (int32_t)i;
	if (p->nr_consts == VMSTACK_VM4_CONSTS) {
		fail(p, "VM program: too many constants");
		return 0;
	}
	p->consts[p->nr_consts] = v;
	return (int32_t)p->nr_consts++;
}

void vm_prog_mov64(struct vm_prog *p, int dst, uint64_t v)
{
	if (fits_imm(v))
		emit(p, VMSTACK_VM4_MOV_K, dst, 0, (int32_t)v, VM_NO_LABEL);
	else
		emit(p, VMSTACK_VM4_LDC, dst, 0, konst(p, v), VM_NO_LABEL);
}

void vm_prog_and64(struct vm_prog *p, int dst, uint64_t v, int tmp)
{
	if (v == ~0ULL)
		return;
	if (fits_imm(v)) {
		emit(p, VMSTACK_VM4_AND_K, dst, 0, (int32_t)v, VM_NO_LABEL);
		return;
	}
	vm_prog_mov64(p, tmp, v);
	emit(p, VMSTACK_VM4_AND, dst, tmp, 0, VM_NO_LABEL);
}

void vm_prog_ldreg(struct vm_prog *p, int dst, int reg)
{
	emit(p, VMSTACK_VM4_LDREG, dst, 0, reg, VM_NO_LABEL);
}

void vm_prog_ld(struct vm_prog *p, int size, int sign, int dst, int src, int32_t off,
		vm_label fail_to)
{
	int op;

	switch (size) {
	case 1: op = sign ? VMSTACK_VM4_LD8_S : VMSTACK_VM4_LD8; break;
	case 2: op = sign ? VMSTACK_VM4_LD16_S : VMSTACK_VM4_LD16; break;
	case 4: op = sign ? VMSTACK_VM4_LD32_S : VMSTACK_VM4_LD32; break;
	default: op = VMSTACK_VM4_LD64; break;
	}
	emit(p, op, dst, src, off, fail_to);
}

void vm_prog_ja(struct vm_prog *p, vm_label l)
{
	emit(p, VMSTACK_VM4_JA, 0, 0, 0, l);
}

void vm_prog_jmp_k(struct vm_prog *p, int op, int dst, int32_t imm, vm_label l)
{
	emit(p, op, dst, 0, imm, l);
}

void vm_prog_jmp(struct vm_prog *p, int op, int dst, int src, vm_label l)
{
	emit(p, op, dst, src, 0, l);
}

void vm_prog_jmp64(struct vm_prog *p, int op, int dst, uint64_t v, int tmp, vm_label l)
{
	if (fits_imm(v)) {
		emit(p, op, dst, 0, (int32_t)v, l);
		return;
	}
	vm_prog_mov64(p, tmp, v);
	emit(p, op - 1, dst, tmp, 0, l);
}

static int is_load(const struct vmstack_vm_insn *in)
{
	return in->op >= VMSTACK_VM4_LD8 && in->op <= VMSTACK_VM4_LD32_S;
}

/*
 * Jump threading: a jump to a JA goes where that JA goes. A load's fail
 * edge is not threaded onto its next instruction (no off says that).
 */
static void thread_jumps(const struct vm_prog *p, int *tgt)
{
	unsigned int i, hops;
	int t;

	for (i = 0; i < p->len; i++) {
		if (tgt[i] < 0)
			continue;
		t = tgt[i];
		for (hops = 0; (unsigned int)t < p->len && p->insn[t].op == VMSTACK_VM4_JA &&
		     hops < p->len; hops++)
			t = tgt[t];
		if (!is_load(&p->insn[i]) || t != (int)i + 1)
			tgt[i] = t;
	}
}

/* The JAs to what runs next anyway (every instruction between dropped too), unless kept. */
static void mark_dropped(const struct vm_prog *p, const int *tgt, const bool *keep, bool *drop)
{
	unsigned int i;
	int j;

	for (i = p->len; i-- > 0;) {
		drop[i] = false;
		if (keep[i] || p->insn[i].op != VMSTACK_VM4_JA || tgt[i] <= (int)i ||
		    tgt[i] >= (int)p->len)
			continue;
		for (j = (int)i + 1; j < tgt[i] && drop[j]; j++)
			;
		drop[i] = j == tgt[i];
	}
}

/*
 * Drop what mark_dropped() finds, keeping the JAs whose loss would put a
 * load's fail edge on its next instruction. @pos: each instruction's
 * place in the program left (pos[len]: its length).
 */
static void drop_jumps(const struct vm_prog *p, const int *tgt, int *pos)
{
	bool keep[VMSTACK_VM4_PROG_MAX] = { false }, drop[VMSTACK_VM4_PROG_MAX], again = true;
	unsigned int i;
	int j;

	while (again) {
		again = false;
		mark_dropped(p, tgt, keep, drop);
		pos[0] = 0;
		for (i = 0; i < p->len; i++)
			pos[i + 1] = pos[i] + !drop[i];
		for (i = 0; i < p->len; i++) {
			if (drop[i] || !is_load(&p->insn[i]) || tgt[i] <= (int)i + 1 ||
			    pos[tgt[i]] != pos[i] + 1)
				continue;
			for (j = (int)i + 1; j < tgt[i]; j++)
				keep[j] = keep[j] || drop[j];
			again = true;
		}
	}
	for (i = 0; i < p->len; i++)
		if (drop[i])
			pos[i] = -1;
}

const char *vm_prog_end(struct vm_prog *p, struct vmstack_vm_desc4 *d)
{
	struct vmstack_vm_insn out[VMSTACK_VM4_PROG_MAX];
	int tgt[VMSTACK_VM4_PROG_MAX], pos[VMSTACK_VM4_PROG_MAX + 1], at;
	unsigned int i, n = 0;

	for (i = 0; i < p->len && !p->err; i++) {
		tgt[i] = p->to[i];
		if (p->to[i] < 0)
			continue;
		if ((unsigned int)p->to[i] >= p->nr_labels || p->at[p->to[i]] < 0)
			fail(p, "VM program: a jump to a label never bound");
		else
			tgt[i] = p->at[p->to[i]];
	}
	if (!p->len)
		fail(p, "VM program: empty");
	if (p->err)
		return p->err;
	thread_jumps(p, tgt);
	drop_jumps(p, tgt, pos);
	for (i = 0; i < p->len; i++) {
		if (pos[i] < 0)
			continue;
		out[n] = p->insn[i];
		if (tgt[i] >= 0) {
			/* A dropped JA's place is what follows it. */
			for (at = tgt[i]; at < (int)p->len && pos[at] < 0; at++)
				;
			out[n].off = (int16_t)(pos[at] - (int)n - 1);
			/*
			 * A load's off 0 means "no place to go on failure": a
			 * load whose failure goes on with the next instruction
			 * says so by a jump the builder places elsewhere.
			 */
			if (!out[n].off && is_load(&out[n]))
				fail(p, "VM program: a load fails over to its next instruction");
		}
		n++;
	}
	if (p->err)
		return p->err;
	memcpy(d->prog, out, n * sizeof(out[0]));
	d->prog_len = (uint16_t)n;
	memcpy(d->consts, p->consts, sizeof(d->consts));
	d->nr_consts = p->nr_consts;
	return NULL;
}

const char *vm_prog_end_loop(struct vm_prog *p, struct vmstack_vm_desc4 *d, uint64_t start,
			     uint64_t end)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->flags = VMSTACK_VM4_F_NATIVE_STEP;
	d->ranges[0].start = start;
	d->ranges[0].end = end;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	return vm_prog_end(p, d);
}
