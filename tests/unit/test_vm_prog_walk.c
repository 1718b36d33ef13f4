// SPDX-License-Identifier: GPL-2.0
/*
 * The VM walk's fixed part (module/vm_walk.c) around a program: what the
 * user walk does on each exit (SHOWN, EMPTY, CUT, CUT + STATE), with
 * F4_NATIVE_STEP, across two activations (r8..r11 carried), and in
 * compiled code (AT_JIT). A toy VM: its activation record (AR) is the
 * native frame's sp: +0 its top frame, +8 the caller's rbp, +16 the
 * return address, +24 the caller's sp. A frame: +0 the next frame, +8
 * its identity, +16 its PC.
 */
#include <string.h>

#include "fake_mem.h"
#include "unit.h"
#include "vm_prog.h"

#define STACK	0x7ff000000000UL
#define HEAP	0x10000000UL
#define VM_LO	0x400000UL
#define VM_HI	0x401000UL
#define JIT_LO	0x700000UL		/* compiled code: no VM range, no rules */
#define MAIN_RA	0x500100UL		/* native code, no memory needed */
#define AR1	(STACK + 0x100)
#define AR2	(AR1 + 24)
#define FA	(HEAP + 0x100)
#define FB	(HEAP + 0x200)

static u64 ips[64];
static struct vmstack_vm_desc4 desc;

#define I(op, dst, src, off, imm) \
	((struct vmstack_vm_insn){ VMSTACK_VM4_##op, VMSTACK_VM4_REGS_OF(dst, src), off, imm })

/*
 * The toy's program: the top frame is r8 if an inner activation left
 * one, else the AR's; one frame is shown, and its next one left in r8.
 * No top: an activation without frames. AT_JIT: the AR is at anchor + 0.
 */
static const struct vmstack_vm_insn toy_prog[] = {
	I(JNE_K, 0, 0, 1, VMSTACK_VM4_AT_JIT),
	I(LD64, 1, 1, 0, 0),			/* AT_JIT: r1 = the AR */
	I(MOV, 7, 8, 0, 0),
	I(JNE_K, 7, 0, 3, 0),
	I(LD64, 7, 1, 0, 0),
	I(JNE_K, 7, 0, 1, 0),
	I(EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY),
	I(LD64, 2, 7, 0, 8),
	I(LD64, 3, 7, 0, 16),
	I(EMIT_SCRIPT, 2, 3, 0, 0),
	I(LD64, 8, 7, 0, 0),
	I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN),
};

static void toy(void)
{
	memset(&desc, 0, sizeof(desc));
	desc.size = sizeof(desc);
	desc.ranges[0].start = VM_LO;
	desc.ranges[0].end = VM_HI;
	desc.max_frames = 16;
	desc.caller_bp_off = 8;
	desc.caller_ra_off = 16;
	desc.caller_sp_off = 24;
	desc.prog_len = sizeof(toy_prog) / sizeof(toy_prog[0]);
	memcpy(desc.prog, toy_prog, sizeof(toy_prog));
	fake_mem_reset();
	fake_mem_map(STACK, 0x1000);
	fake_mem_map(HEAP, 0x1000);
	/* A (pc 0xa1) then B (pc 0xb1); the VM called from MAIN_RA. */
	fake_put64(FA, FB);
	fake_put64(FA + 8, 0xa0);
	fake_put64(FA + 16, 0xa1);
	fake_put64(FB + 8, 0xb0);
	fake_put64(FB + 16, 0xb1);
	fake_put64(AR1, FA);
	fake_put64(AR1 + 16, MAIN_RA);
}

static struct vmstack_walk toy_walk(unsigned long ip)
{
	struct vmstack_walk w;

	CHECK(vmstack_vm_desc4_check(&desc) == NULL);
	memset(&w, 0, sizeof(w));
	w.vms = &desc;
	w.nr_vms = 1;
	w.ip = ip;
	w.sp = AR1;
	w.ips = ips;
	w.max = 64;
	w.reads_left = VMSTACK_MAX_READS;
	w.deadline = ~0ULL;
	return w;
}

static u64 word(unsigned int kind, u64 v)
{
	return vmstack_vmw(kind, 0, v);
}

UNIT_TEST(vm_walk_shown_then_caller)
{
	struct vmstack_walk w;

	toy();
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 3);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, 0xa0) && ips[1] == 0xa1);
	CHECK(ips[2] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);
	/* What the run left for the next activation. */
	CHECK(w.vm_carry[0][0] == FB);
}

UNIT_TEST(vm_walk_empty)
{
	struct vmstack_walk w;

	/* No frames of its own: the native frame goes, the caller stays. */
	toy();
	fake_put64(AR1, 0);
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(ips[0] == MAIN_RA);
	CHECK(w.flags == 0);
	/* A VM in C keeps its native frame and steps over it by its rules. */
	desc.flags = VMSTACK_VM4_F_NATIVE_STEP;
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(ips[0] == VM_LO + 0x10);
}

UNIT_TEST(vm_walk_native_step)
{
	struct vmstack_walk w;

	/* Frames shown; the native frame's own step (rbp 0: the end) leads on. */
	toy();
	desc.flags = VMSTACK_VM4_F_NATIVE_STEP;
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 2);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, 0xa0));
	CHECK(w.flags == VMSTACK_SF_VM);
}

UNIT_TEST(vm_walk_cut)
{
	struct vmstack_walk w;

	/* A frame in no memory: the marker, then the caller as shown. */
	toy();
	fake_put64(AR1, HEAP + 0x4000);
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 2);
	CHECK(ips[0] == word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_READ));
	CHECK(ips[1] == MAIN_RA);
	CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));

	/* No state: the native frame stays after the marker. */
	desc.prog[0] = I(EXIT, 0, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 2);
	CHECK(ips[0] == word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_STATE));
	CHECK(ips[1] == VM_LO + 0x10);
	CHECK(w.flags == VMSTACK_SF_VM_BROKEN);
}

UNIT_TEST(vm_walk_carry)
{
	struct vmstack_walk w;

	/*
	 * The VM's caller is the VM again (a second activation, AR2): it
	 * shows B, which the first one left in r8, not its own AR's top.
	 */
	toy();
	fake_put64(AR1 + 16, VM_LO + 0x20);
	fake_put64(AR2, FA);
	fake_put64(AR2 + 16, MAIN_RA);
	w = toy_walk(VM_LO + 0x10);
	CHECK(vmstack_walk_user(&w) == 5);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, 0xa0) && ips[1] == 0xa1);
	CHECK(ips[2] == word(VMSTACK_VMW_SCRIPT, 0xb0) && ips[3] == 0xb1);
	CHECK(ips[4] == MAIN_RA);
}

UNIT_TEST(vm_walk_jit)
{
	/* An anchor in r14: +0 the AR, +8 s32 id, +12 u32 count, +16 table. */
	const unsigned long anchor = HEAP + 0x800, table = HEAP + 0x900;
	const unsigned long obj = HEAP + 0xa00;
	struct vmstack_walk w;

	toy();
	desc.flags = VMSTACK_VM4_F_JIT;
	desc.jit_reg = VMSTACK_VM_REG_R14;
	desc.jit_mask = ~0ULL;
	desc.jit_id_off = 8;
	desc.jit_count_off = 12;
	desc.jit_table_off = 16;
	desc.jit_code_off = 0;
	desc.jit_size_off = 8;
	fake_put64(anchor, AR1);
	fake_put32(anchor + 8, 1);
	fake_put32(anchor + 12, 2);
	fake_put64(anchor + 16, table);
	fake_put64(table + 8, obj);
	fake_put64(obj, JIT_LO);
	fake_put32(obj + 8, 0x100);
	w = toy_walk(JIT_LO + 0x10);
	w.regs[VMSTACK_VM_REG_R14] = anchor;
	CHECK(vmstack_walk_user(&w) == 4);
	CHECK(ips[0] == word(VMSTACK_VMW_JIT, obj));
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, 0xa0) && ips[2] == 0xa1);
	CHECK(ips[3] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);

	/* No AR from the program: the stack ends at the compiled code. */
	fake_put64(anchor, 0);
	w = toy_walk(JIT_LO + 0x10);
	w.regs[VMSTACK_VM_REG_R14] = anchor;
	CHECK(vmstack_walk_user(&w) == 2);
	CHECK(ips[1] == word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_READ));
}

UNIT_TEST(vm_walk_sample_steps)
{
	/*
	 * A program that never exits, at each of ten native frames (a VM in
	 * C, frame pointers): four runs spend the sample's steps, the other
	 * six are cut before their first, and the walk still ends.
	 */
	static const struct vmstack_vm_insn loop[] = {
		I(ADD_K, 4, 0, 0, 1),
		I(JA, 0, 0, -2, 0),
	};
	struct vmstack_walk w;
	unsigned long bp;
	unsigned int i;

	toy();
	desc.flags = VMSTACK_VM4_F_NATIVE_STEP;
	desc.prog_len = 2;
	memset(desc.prog, 0, sizeof(desc.prog));
	memcpy(desc.prog, loop, sizeof(loop));
	for (i = 0; i < 10; i++) {
		bp = STACK + 0x200 + 0x20 * i;
		fake_put64(bp, i < 9 ? bp + 0x20 : 0);
		fake_put64(bp + 8, VM_LO + 0x20 + i);
	}
	w = toy_walk(VM_LO + 0x10);
	w.regs[VMSTACK_VM_REG_RBP] = STACK + 0x200;
	CHECK(vmstack_walk_user(&w) == 11);
	for (i = 0; i < 11; i++)
		CHECK(ips[i] == word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_STEPS));
	CHECK(w.vm_steps == VMSTACK_VM4_SAMPLE_STEPS);
	CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
}
