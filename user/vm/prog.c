// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program assembler (prog.h). Jumps are kept by label until
 * vm_prog_end(), which knows every label's place: builders write code in
 * the order it reads best, forward jumps included.
 */
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

void vm_prog_alu_k(struct vm_prog *p, int op, int dst, int32_t imm)
{
	emit(p, op, dst, 0, imm, VM_NO_LABEL);
}

void vm_prog_alu(struct vm_prog *p, int op, int dst, int src)
{
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

const char *vm_prog_end(struct vm_prog *p, struct vmstack_vm_desc4 *d)
{
	unsigned int i;
	int off;

	for (i = 0; i < p->len && !p->err; i++) {
		if (p->to[i] < 0)
			continue;
		if ((unsigned int)p->to[i] >= p->nr_labels || p->at[p->to[i]] < 0) {
			fail(p, "VM program: a jump to a label never bound");
			break;
		}
		off = p->at[p->to[i]] - (int)i - 1;
		/*
		 * A load's off 0 means "no place to go on failure": a load
		 * whose failure goes on with the next instruction says so
		 * by a jump the builder places elsewhere.
		 */
		if (off == 0 && p->insn[i].op >= VMSTACK_VM4_LD8 &&
		    p->insn[i].op <= VMSTACK_VM4_LD32_S)
			fail(p, "VM program: a load fails over to its next instruction");
		p->insn[i].off = (int16_t)off;
	}
	if (!p->len)
		fail(p, "VM program: empty");
	if (p->err)
		return p->err;
	memcpy(d->prog, p->insn, p->len * sizeof(p->insn[0]));
	d->prog_len = (uint16_t)p->len;
	memcpy(d->consts, p->consts, sizeof(d->consts));
	d->nr_consts = p->nr_consts;
	return NULL;
}
