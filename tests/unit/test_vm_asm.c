// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 program assembler (user/vm/prog.c): jumps to labels bound
 * before and after them, 64-bit values as immediates or constants, and
 * the first error kept and reported once.
 */
#include <string.h>

#include "unit.h"
#include "vm/prog.h"

UNIT_TEST(vm_asm_labels)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	vm_label back, fwd, fail;

	vm_prog_init(&p);
	back = vm_prog_label(&p);
	fwd = vm_prog_label(&p);
	fail = vm_prog_label(&p);
	vm_prog_bind(&p, back);					/* 0 */
	vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 1, 5, fwd);	/* 0 -> 3: off 2 */
	vm_prog_ld(&p, 4, 1, 2, 3, -8, fail);			/* 1 -> 4: off 2 */
	vm_prog_ja(&p, back);					/* 2 -> 0: off -3 */
	vm_prog_bind(&p, fwd);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(&p, fail);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_EMPTY);
	CHECK(vm_prog_end(&p, &d) == NULL);
	CHECK(d.prog_len == 5);
	CHECK(d.prog[0].op == VMSTACK_VM4_JEQ_K && d.prog[0].off == 2 && d.prog[0].imm == 5 &&
	      d.prog[0].regs == 1);
	CHECK(d.prog[1].op == VMSTACK_VM4_LD32_S && d.prog[1].off == 2 && d.prog[1].imm == -8 &&
	      d.prog[1].regs == VMSTACK_VM4_REGS_OF(2, 3));
	CHECK(d.prog[2].op == VMSTACK_VM4_JA && d.prog[2].off == -3);
}

UNIT_TEST(vm_asm_constants)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	vm_label l;

	vm_prog_init(&p);
	l = vm_prog_label(&p);
	vm_prog_mov64(&p, 1, (uint64_t)-5);			/* an imm */
	vm_prog_mov64(&p, 2, 0x123456789ULL);			/* a constant */
	vm_prog_and64(&p, 3, ~0ULL, 4);				/* nothing */
	vm_prog_and64(&p, 3, 0xffffffffULL, 4);			/* a constant */
	vm_prog_jmp64(&p, VMSTACK_VM4_JEQ_K, 3, 0x123456789ULL, 4, l);	/* the same one */
	vm_prog_bind(&p, l);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	CHECK(vm_prog_end(&p, &d) == NULL);
	CHECK(d.prog_len == 7 && d.nr_consts == 2);
	CHECK(d.prog[0].op == VMSTACK_VM4_MOV_K && d.prog[0].imm == -5);
	CHECK(d.prog[1].op == VMSTACK_VM4_LDC && d.consts[d.prog[1].imm] == 0x123456789ULL);
	CHECK(d.prog[2].op == VMSTACK_VM4_LDC && d.consts[d.prog[2].imm] == 0xffffffffULL);
	CHECK(d.prog[3].op == VMSTACK_VM4_AND && d.prog[3].regs == VMSTACK_VM4_REGS_OF(3, 4));
	CHECK(d.prog[4].op == VMSTACK_VM4_LDC && d.prog[4].imm == d.prog[1].imm);
	CHECK(d.prog[5].op == VMSTACK_VM4_JEQ && d.prog[5].off == 0);
}

UNIT_TEST(vm_asm_errors)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	vm_label l;
	int i;

	vm_prog_init(&p);
	for (i = 0; i <= VMSTACK_VM4_PROG_MAX; i++)
		vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, 0);
	CHECK(vm_prog_end(&p, &d) && strstr(p.err, "too long"));
	vm_prog_init(&p);
	l = vm_prog_label(&p);
	vm_prog_ja(&p, l);
	CHECK(vm_prog_end(&p, &d) && strstr(p.err, "never bound"));
	/* A load that fails over to its next instruction has no off to say so. */
	vm_prog_init(&p);
	l = vm_prog_label(&p);
	vm_prog_ld(&p, 8, 0, 1, 1, 0, l);
	vm_prog_bind(&p, l);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, 0);
	CHECK(vm_prog_end(&p, &d) && strstr(p.err, "next instruction"));
	CHECK(vm_prog_end(&(struct vm_prog){ .len = 0 }, &d) != NULL);
}
