/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An assembler for ABI 4 VM programs (struct vmstack_vm_desc4's prog and
 * consts): instructions appended in order, labels bound before or after
 * the jumps to them (fixed at the end), 64-bit values as immediates where
 * they fit and as constants where not. The first error is kept and
 * reported once, at the end: the builders need no check per instruction.
 */
#ifndef VMSTACK_VM_PROG_H
#define VMSTACK_VM_PROG_H

#include <stdint.h>

#include <linux/vmstack.h>

#define VM_PROG_LABELS	128

struct vm_prog {
	struct vmstack_vm_insn insn[VMSTACK_VM4_PROG_MAX];
	unsigned int len;
	uint64_t consts[VMSTACK_VM4_CONSTS];
	unsigned int nr_consts;
	/* Where each label is bound (-1: not yet), and how many exist. */
	int at[VM_PROG_LABELS];
	unsigned int nr_labels;
	/* The label each jump goes to, by instruction (-1: none). */
	int to[VMSTACK_VM4_PROG_MAX];
	const char *err;	/* the first error, or NULL */
};

/* A label: a place in the program, bound once with vm_prog_bind(). */
typedef int vm_label;
/* "No label": a load whose failure ends the run (the ABI's default). */
#define VM_NO_LABEL	(-1)

void vm_prog_init(struct vm_prog *p);
vm_label vm_prog_label(struct vm_prog *p);
/* The next instruction appended is @l's place. */
void vm_prog_bind(struct vm_prog *p, vm_label l);

/* dst = dst OP imm (an ALU _K opcode), or dst = dst OP src. */
void vm_prog_alu_k(struct vm_prog *p, int op, int dst, int32_t imm);
void vm_prog_alu(struct vm_prog *p, int op, int dst, int src);
/* dst = @v, as MOV_K when it fits a sign-extended imm, else LDC. */
void vm_prog_mov64(struct vm_prog *p, int dst, uint64_t v);
/*
 * dst &= @v (a 64-bit mask), through @tmp when no imm holds it; nothing
 * when @v is all ones.
 */
void vm_prog_and64(struct vm_prog *p, int dst, uint64_t v, int tmp);
/* dst = sampled register @reg (enum vmstack_vm_reg). */
void vm_prog_ldreg(struct vm_prog *p, int dst, int reg);
/*
 * dst = the @size bytes (1, 2, 4, 8) at src + off, zero-extended (or
 * sign-extended with @sign: 1, 2, 4 only). A read that fails jumps to
 * @fail (dst unchanged), or with VM_NO_LABEL ends the run.
 */
void vm_prog_ld(struct vm_prog *p, int size, int sign, int dst, int src, int32_t off,
		vm_label fail);
/* Jump to @l (JA), or if dst CMP imm / dst CMP src (a _K or a register opcode). */
void vm_prog_ja(struct vm_prog *p, vm_label l);
void vm_prog_jmp_k(struct vm_prog *p, int op, int dst, int32_t imm, vm_label l);
void vm_prog_jmp(struct vm_prog *p, int op, int dst, int src, vm_label l);
/*
 * Jump to @l if dst CMP @v, an unsigned 64-bit value, through @tmp when
 * no imm holds it (op is the _K opcode; its register form follows it).
 */
void vm_prog_jmp64(struct vm_prog *p, int op, int dst, uint64_t v, int tmp, vm_label l);
/* Any other instruction, as the ABI lays it out (EMIT_*, MARK, UNDO, EXIT). */
void vm_prog_insn(struct vm_prog *p, int op, int dst, int src, int32_t imm);

/*
 * Fix the jumps and copy the program and its constants into @d. NULL, or
 * the first error (too long, too many constants or labels, a label
 * never bound, a jump too far).
 */
const char *vm_prog_end(struct vm_prog *p, struct vmstack_vm_desc4 *d);

/*
 * The whole descriptor of an interpreter loop written in plain C whose
 * code is [@start, @end), running @p: @d zeroed, F4_NATIVE_STEP (its
 * native frame left by its own unwind rules), up to VMSTACK_VM_MAX_FRAMES
 * frames an activation, then vm_prog_end()'s answer.
 */
const char *vm_prog_end_loop(struct vm_prog *p, struct vmstack_vm_desc4 *d, uint64_t start,
			     uint64_t end);

#endif
