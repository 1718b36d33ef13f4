// SPDX-License-Identifier: GPL-2.0
/*
 * What a translated ABI 3 program costs per frame: the VM instructions
 * the module executes (w.vm_steps) for a walk of N frames, less those of
 * a walk of a few, per frame. The module dispatches each instruction
 * through a tree of compares (no jump tables): this is the sample
 * handler's cost that grows with the stack. Deep stacks of LuaJIT GC64
 * frames (as test_walk_checks.c lays them out, under the real
 * /usr/bin/luajit's descriptor too) and of the toy VM's pointer-linked
 * frames (walk_setup.c). The bounds hold the cost to what it is now.
 */
#include <string.h>
#include <unistd.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "detect_file.h"
#include "lj_gc64_desc.h"
#include "unit.h"
#include "walk_setup.h"

/* LuaJIT 2.1 GC64: lua_State, its stack, one Lua function calling itself. */
#define LJ_AR	(STACK + 0x100)		/* the interpreter's cframe */
#define LJ_L	HEAP			/* gct +9, base +0x20, stack +0x38, cframe +0x50 */
#define LJ_LS	(HEAP + 0x2000)
#define LJ_FN	(HEAP + 0x800)		/* GCfuncL: gct +9, ffid +0xa, pc +0x20 */
#define LJ_PT	(HEAP + 0x1000)		/* GCproto: sizebc +0xc; bytecode from +0x68 */
#define LJ_BC	(LJ_PT + 0x68)
#define LJ_RET	(LJ_BC + 4 * 4)		/* the return PC, after its CALL A=2 */
#define LJ_F(i)	(LJ_LS + 0x10 + 32 * (i))	/* frame i's link slot (0: called from C) */
#define LJ_TFUNC	(0x1fff7ULL << 47)

static struct vmstack_vm_desc lj_desc(void)
{
	return lj_gc64_desc(VM_LO, VM_HI);
}

/* @n Lua frames, the innermost running (rdx its BASE, rbx a PC in it). */
static void lj_stack(unsigned int n)
{
	unsigned int i;

	mem_setup();
	fake_put8(LJ_FN + 9, 8);
	fake_put64(LJ_FN + 0x20, LJ_BC);
	fake_put32(LJ_PT + 0xc, 16);
	fake_put32(LJ_RET - 4, 2 << 8 | 0x42);
	for (i = 0; i < n; i++) {
		fake_put64(LJ_F(i) - 8, LJ_TFUNC | LJ_FN);
		fake_put64(LJ_F(i), i ? LJ_RET : (LJ_F(0) - LJ_LS) | 1);
	}
	fake_put8(LJ_L + 9, 6);
	fake_put64(LJ_L + 0x20, LJ_F(n - 1) + 8);
	fake_put64(LJ_L + 0x38, LJ_LS);
	fake_put64(LJ_L + 0x50, LJ_AR);
	fake_put64(LJ_AR + 0x10, LJ_L);
	fake_put64(LJ_AR + 0x48, MAIN_RA);
}

/* The VM instructions a walk of lj_stack(@n) took; its words checked. */
static unsigned int lj_steps(const struct vmstack_vm_desc4 *d4, unsigned int n)
{
	struct vmstack_walk w = walk_from(VM_LO + 0x10, LJ_AR, 0);
	unsigned int i;

	lj_stack(n);
	w.vms = d4;
	w.nr_vms = 1;
	w.regs[VMSTACK_VM_REG_RDX] = LJ_F(n - 1) + 8;
	w.regs[VMSTACK_VM_REG_RBX] = LJ_BC + 4 * 9;
	CHECK(vmstack_walk_user(&w) == 2 * n + 1 && ips[2 * n] == MAIN_RA);
	for (i = 0; i < n; i++)
		CHECK(ips[2 * i] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, LJ_PT) &&
		      ips[2 * i + 1] == (i ? LJ_RET : LJ_BC + 4 * 9));
	return w.vm_steps;
}

/* The toy VM (walk_setup.c): @n script frames, each its caller's callee. */
#define TOY_AR	(STACK + 0x100)
#define TOY_ST	HEAP
#define TOY_FN	(HEAP + 0x100)
#define TOY_F(i)	(HEAP + 0x1000 + 0x20 * (i))

static unsigned int toy_steps(const struct vmstack_vm_desc4 *d4, unsigned int n)
{
	struct vmstack_walk w = walk_from(VM_LO + 0x10, TOY_AR, 0);
	unsigned int i;

	mem_setup();
	fake_put8(TOY_ST, 0x55);
	fake_put64(TOY_ST + 8, TOY_F(n - 1));
	fake_put64(TOY_AR, TOY_ST);
	fake_put64(TOY_AR + 24, MAIN_RA);
	fake_put8(TOY_FN, 1);
	fake_put64(TOY_FN + 8, 0x1234);
	for (i = 0; i < n; i++) {
		fake_put64(TOY_F(i), i ? TOY_F(i - 1) : 0);
		fake_put16(TOY_F(i) + 8, i ? 0 : 1);
		fake_put64(TOY_F(i) + 16, TOY_FN);
	}
	w.vms = d4;
	w.nr_vms = 1;
	w.regs[VMSTACK_VM_REG_RDX] = TOY_F(n - 1);
	CHECK(vmstack_walk_user(&w) == 2 * n + 1 && ips[2 * n] == MAIN_RA);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x1234));
	return w.vm_steps;
}

#define FEW	4
#define MANY	24

/* Steps per frame between a walk of FEW frames and one of MANY. */
static unsigned int per_frame(unsigned int (*steps)(const struct vmstack_vm_desc4 *, unsigned int),
			      const struct vmstack_vm_desc4 *d4, const char *what)
{
	unsigned int few = steps(d4, FEW), many = steps(d4, MANY);
	unsigned int each = (many - few) / (MANY - FEW);

	fprintf(stderr, "  %s: %u instructions; %u steps for %u frames, %u for %u: %u a frame\n",
		what, d4->prog_len, few, FEW, many, MANY, each);
	return each;
}

/* The real /usr/bin/luajit's descriptor, its code range the fake one; 0 if not installed. */
static int real_luajit(struct vmstack_vm_desc *d)
{
	struct vmstack_vm_found f;
	char why[256];

	if (access("/usr/bin/luajit", F_OK) ||
	    unit_detect_file("luajit", "/usr/bin/luajit", 0x10000000, &f, why, sizeof(why)) !=
	    VMSTACK_DETECT_YES)
		return 0;
	*d = f.desc;
	/* Moved to 4 KiB of code, which the exit handler's entry is not in. */
	d->exit_entry_start = d->exit_entry_end = 0;
	d->code_start = VM_LO;
	d->code_end = VM_HI;
	return 1;
}

UNIT_TEST(desc3_steps_per_frame)
{
	struct vmstack_vm_desc d = lj_desc();

	CHECK(per_frame(lj_steps, desc4_of(&d, 1), "LuaJIT GC64, a Lua frame") <= 33);
	/* 3 more than the fake's: its prototype's tag (F_IDENT_TAG), 36 measured. */
	if (real_luajit(&d))
		CHECK(per_frame(lj_steps, desc4_of(&d, 1), "/usr/bin/luajit's, a Lua frame") <= 36);
	d = toy_desc();
	d.max_frames = VMSTACK_VM_MAX_FRAMES;
	CHECK(per_frame(toy_steps, desc4_of(&d, 1), "toy pointer links, a script frame") <= 18);
}
