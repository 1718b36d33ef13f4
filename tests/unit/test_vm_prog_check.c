// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 descriptor check (module/vm_prog_check.c): what it accepts,
 * each refusal, and the instruction a refusal names.
 */
#include <string.h>

#include "unit.h"
#include "vm_prog_check.h"

static struct vmstack_vm_desc4 d;

static struct vmstack_vm_insn insn(__u8 op, unsigned int dst, unsigned int src, __s16 off,
				   __s32 imm)
{
	struct vmstack_vm_insn in = { op, VMSTACK_VM4_REGS_OF(dst, src), off, imm };

	return in;
}

/* A well-formed descriptor: one range, a loop that emits and exits. */
static void good(void)
{
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.ranges[1].start = 0x400000;
	d.ranges[1].end = 0x401000;
	d.max_frames = 16;
	d.nr_consts = 1;
	d.consts[0] = 0x1234;
	d.prog[0] = insn(VMSTACK_VM4_LDC, 1, 0, 0, 0);
	d.prog[1] = insn(VMSTACK_VM4_LD64, 2, 1, 0, -8);
	d.prog[2] = insn(VMSTACK_VM4_JEQ_K, 2, 0, 2, 0);
	d.prog[3] = insn(VMSTACK_VM4_EMIT_SCRIPT, 2, 1, 0, 0);
	d.prog[4] = insn(VMSTACK_VM4_JA, 0, 0, -4, 0);
	d.prog[5] = insn(VMSTACK_VM4_EXIT, 0, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STEPS);
	d.prog_len = 6;
}

/* The check's message for the descriptor as it is, and the index it names. */
static const char *check(int *at)
{
	const char *err = vmstack_vm_desc4_check_insn(&d, at);

	/* Both forms agree. */
	CHECK((err == NULL) == (vmstack_vm_desc4_check(&d) == NULL));
	return err;
}

/* Refused, for a reason that contains @why, about instruction @at. */
static void refused(const char *why, int at)
{
	const char *err;
	int i = -2;

	err = check(&i);
	CHECK(err && strstr(err, why));
	CHECK(i == at);
	if (!err || !strstr(err, why) || i != at)
		fprintf(stderr, "  want \"%s\" at %d, got \"%s\" at %d\n", why, at,
			err ? err : "(accepted)", i);
}

UNIT_TEST(vm_prog_check_accepts)
{
	int at = 5;

	good();
	CHECK(check(&at) == NULL);
	CHECK(at == -1);
	/* Every exit the ABI has; a JA last; the largest program and constants. */
	d.prog[5].imm = VMSTACK_VM4_X_SHOWN;
	CHECK(check(NULL) == NULL);
	d.prog[5].imm = VMSTACK_VM4_X_EMPTY;
	CHECK(check(NULL) == NULL);
	d.prog[5].imm = __VMSTACK_VM4_X_MAX - 1;
	CHECK(check(NULL) == NULL);
	d.prog[5] = insn(VMSTACK_VM4_JA, 0, 0, -6, 0);
	CHECK(check(NULL) == NULL);
	good();
	d.prog_len = VMSTACK_VM4_PROG_MAX;
	d.prog[VMSTACK_VM4_PROG_MAX - 1] = insn(VMSTACK_VM4_EXIT, 0, 0, 0, 0);
	d.nr_consts = VMSTACK_VM4_CONSTS;
	d.consts[VMSTACK_VM4_CONSTS - 1] = 1;
	d.max_frames = VMSTACK_VM_MAX_FRAMES;
	CHECK(check(NULL) == NULL);
	/* Compiled code through a register, or a pointer variable. */
	good();
	d.flags = VMSTACK_VM4_F_JIT | VMSTACK_VM4_F_JIT_NEAR | VMSTACK_VM4_F_JIT_REF32;
	d.jit_reg = VMSTACK_VM_REG_R14;
	d.jit_near_max = VMSTACK_VM_JIT_NEAR_MAX;
	CHECK(check(NULL) == NULL);
	d.jit_reg = VMSTACK_VM_REG_NONE;
	d.jit_anchor_ptr = 0x600000;
	CHECK(check(NULL) == NULL);
}

UNIT_TEST(vm_prog_check_fields)
{
	good();
	d.flags = VMSTACK_VM4_F_ALL + 1;
	refused("unknown flags", -1);
	good();
	d.ranges[1].start = 0;
	d.ranges[1].end = 0;
	refused("no entry range", -1);
	good();
	d.ranges[0].start = 0x500000;
	d.ranges[0].end = 0x500000;
	refused("entry range", -1);
	good();
	d.ranges[1].end = 1ULL << 60;
	refused("entry range", -1);
	good();
	d.max_frames = 0;
	refused("out of range", -1);
	good();
	d.max_frames = VMSTACK_VM_MAX_FRAMES + 1;
	refused("out of range", -1);
	good();
	d.prog_len = 0;
	refused("out of range", -1);
	good();
	d.prog_len = VMSTACK_VM4_PROG_MAX + 1;
	refused("out of range", -1);
	good();
	d.nr_consts = VMSTACK_VM4_CONSTS + 1;
	refused("out of range", -1);
	good();
	d.jit_reg = __VMSTACK_VM_REG_MAX;
	refused("out of range", -1);
	good();
	d.pad0[2] = 1;
	refused("padding", -1);
	good();
	d.consts[1] = 1;
	refused("past nr_consts", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT_NEAR;
	refused("without F4_JIT", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT_REF32;
	refused("without F4_JIT", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT | VMSTACK_VM4_F_NATIVE_STEP;
	d.jit_reg = VMSTACK_VM_REG_R14;
	refused("F4_NATIVE_STEP", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT;
	refused("JIT anchor", -1);
	d.jit_anchor_ptr = 0x600004;
	refused("JIT anchor", -1);
	d.jit_anchor_ptr = 1ULL << 60;
	refused("JIT anchor", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT | VMSTACK_VM4_F_JIT_NEAR;
	d.jit_reg = VMSTACK_VM_REG_R14;
	refused("near", -1);
	d.jit_near_max = VMSTACK_VM_JIT_NEAR_MAX + 1;
	refused("near", -1);
	/* 4.1: code areas, with F4_JIT and 1..64 of them; their fields 0 without. */
	good();
	d.flags = VMSTACK_VM4_F_JIT_AREAS;
	d.jit_areas_max = 4;
	refused("without F4_JIT", -1);
	good();
	d.jit_area_off = 8;
	refused("without F4_JIT_AREAS", -1);
	good();
	d.flags = VMSTACK_VM4_F_JIT | VMSTACK_VM4_F_JIT_AREAS;
	d.jit_reg = VMSTACK_VM_REG_R14;
	refused("code areas", -1);
	d.jit_areas_max = VMSTACK_VM_JIT_AREAS_MAX + 1;
	refused("code areas", -1);
	d.jit_areas_max = VMSTACK_VM_JIT_AREAS_MAX;
	CHECK(vmstack_vm_desc4_check(&d) == NULL);
}

UNIT_TEST(vm_prog_check_insns)
{
	good();
	d.prog[3].op = __VMSTACK_VM4_OP_MAX;
	refused("unknown opcode", 3);
	good();
	d.prog[3].op = 0xff;
	refused("unknown opcode", 3);
	/* Unused operands must be 0: src of a _K form, imm of a register form... */
	good();
	d.prog[2].regs = VMSTACK_VM4_REGS_OF(2, 1);
	refused("does not use", 2);
	good();
	d.prog[3].imm = 1;
	refused("does not use", 3);
	good();
	d.prog[3].off = 1;
	refused("does not use", 3);
	/* ...dst of JA, EXIT and MARK, and anything of UNDO. */
	good();
	d.prog[4].regs = 1;
	refused("does not use", 4);
	good();
	d.prog[5].regs = VMSTACK_VM4_REGS_OF(0, 1);
	refused("does not use", 5);
	good();
	d.prog[3] = insn(VMSTACK_VM4_UNDO, 0, 0, 0, 1);
	refused("does not use", 3);
	/* Jumps inside the program, either way. */
	good();
	d.prog[2].off = 3;
	refused("jump lands outside", 2);
	good();
	d.prog[4].off = -6;
	refused("jump lands outside", 4);
	good();
	d.prog[2].off = 3;
	d.prog_len = 7;
	d.prog[6] = insn(VMSTACK_VM4_EXIT, 0, 0, 0, 0);
	CHECK(check(NULL) == NULL);
	/* A load's fail edge lands inside too; 0 is none. */
	good();
	d.prog[1].off = 3;
	CHECK(check(NULL) == NULL);
	d.prog[1].off = 4;
	refused("jump lands outside", 1);
	d.prog[1].off = -3;
	refused("jump lands outside", 1);
	d.prog[1].off = -2;
	CHECK(check(NULL) == NULL);
	/* Operands the descriptor and the ABI have. */
	good();
	d.prog[0].imm = 1;
	refused("LDC", 0);
	good();
	d.prog[0].imm = -1;
	refused("LDC", 0);
	good();
	d.prog[0] = insn(VMSTACK_VM4_LDREG, 1, 0, 0, __VMSTACK_VM_REG_MAX);
	refused("LDREG", 0);
	d.prog[0].imm = __VMSTACK_VM_REG_MAX - 1;
	CHECK(check(NULL) == NULL);
	good();
	d.prog[3] = insn(VMSTACK_VM4_EMIT_UNVERIFIED, 0, 0, 0, 0);
	refused("EMIT_UNVERIFIED", 3);
	d.prog[3].imm = VMSTACK_VMU_EDGE + 1;
	refused("EMIT_UNVERIFIED", 3);
	d.prog[3].imm = VMSTACK_VMU_EDGE;
	CHECK(check(NULL) == NULL);
	good();
	d.prog[5].imm = VMSTACK_VM4_X_CUT;
	refused("EXIT", 5);
	d.prog[5].imm = 2;
	refused("EXIT", 5);
	d.prog[5].imm = __VMSTACK_VM4_X_MAX;
	refused("EXIT", 5);
	d.prog[5].imm = -1;
	refused("EXIT", 5);
	/* The run cannot fall off the end; nothing hides past prog_len. */
	good();
	d.prog[5] = insn(VMSTACK_VM4_MOV_K, 1, 0, 0, 0);
	refused("last instruction", 5);
	good();
	d.prog[9].imm = 1;
	refused("past prog_len", 9);
}
