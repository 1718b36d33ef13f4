// SPDX-License-Identifier: GPL-2.0
/*
 * The walker's frame checks (ABI 3.6: F_FUNC_CHECK, F_PC_CHECK,
 * F_BUILTIN_KIND) on fake LuaJIT GC64 stacks: a frame's slot that holds
 * no function (a result stored over it, the state's top left behind), a
 * function freed after the sample, a return PC that is not the caller's:
 * never a builtin's name.
 */
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "lj_gc64_desc.h"
#include "unit.h"
#include "walk.h"

#define STACK	0x7ff000000000UL	/* the native stack */
#define HEAP	0x10000000UL
#define VM_LO	0x400000UL		/* the interpreter's code */
#define VM_HI	0x401000UL
#define MAIN_RA	0x500100UL		/* native code, no memory needed */

/* LuaJIT 2.1 GC64 (user/vm/luajit/luajit.c and luajit_builds.c). */
#define AR	(STACK + 0x100)		/* the interpreter's cframe: its rsp */
#define L	HEAP			/* lua_State: gct +9, base +0x20, stack +0x38, cframe +0x50 */
#define LS	(HEAP + 0x2000)		/* its stack */
#define OUTER	(HEAP + 0x800)		/* GCfuncL: gct +9, ffid +0xa, pc +0x20 */
#define INNER	(HEAP + 0x840)
#define BI	(HEAP + 0x880)		/* a builtin (GCfuncC), ffid 42 */
#define TAB	(HEAP + 0x8c0)		/* a table: gct 11, nomm 0xff at +0xa */
#define PT_OUT	(HEAP + 0x1000)		/* GCproto: sizebc +0xc; bytecode from +0x68 */
#define PT_IN	(HEAP + 0x1200)
#define BCFF	(HEAP + 0x3000)		/* the builtin's pseudo-instruction */
#define BC(pt)	((pt) + 0x68)
#define F1	(LS + 0x10)		/* outer's frame (its link slot), called from C */
#define F2	(F1 + 8 * (2 + 2))	/* inner's: outer's CALL has A = 2 */
#define F3	(F2 + 8 * (2 + 1))	/* the builtin's: inner's CALL has A = 1 */
#define P1	(BC(PT_OUT) + 4 * 4)	/* return PCs, after each CALL */
#define P2	(BC(PT_IN) + 4 * 6)
#define TFUNC	(0x1fff7ULL << 47)	/* a function's tag in a slot */
#define VMB_CHECK 6			/* module/vm_walk.c: a frame failed a check */

static u64 ips[64];

static struct vmstack_vm_desc lj_desc(void)
{
	return lj_gc64_desc(VM_LO, VM_HI);
}

static void lj_fn(unsigned long fn, u8 ffid, unsigned long pc)
{
	fake_put8(fn + 9, 8);
	fake_put8(fn + 0xa, ffid);
	fake_put64(fn + 0x20, pc);
}

/*
 * outer (entered from C) calls inner, which calls the builtin: the
 * sample is in the builtin's code, BASE in rdx, PC in rbx past its
 * pseudo-instruction. L->base is the builtin's too.
 */
static void lj_stack(void)
{
	fake_mem_reset();
	fake_mem_map(STACK, 0x10000);
	fake_mem_map(HEAP, 0x10000);
	lj_fn(OUTER, 0, BC(PT_OUT));
	lj_fn(INNER, 0, BC(PT_IN));
	lj_fn(BI, 42, BCFF);
	fake_put8(TAB + 9, 11);
	fake_put8(TAB + 0xa, 0xff);
	fake_put32(PT_OUT + 0xc, 16);
	fake_put32(PT_IN + 0xc, 16);
	fake_put32(P1 - 4, 2 << 8 | 0x42);	/* CALL A=2 */
	fake_put32(P2 - 4, 1 << 8 | 0x42);	/* CALL A=1 */
	fake_put64(F1 - 8, TFUNC | OUTER);
	fake_put64(F1, (F1 - LS) | 1);		/* FRAME_C: the bottom */
	fake_put64(F2 - 8, TFUNC | INNER);
	fake_put64(F2, P1);
	fake_put64(F3 - 8, TFUNC | BI);
	fake_put64(F3, P2);
	fake_put8(L + 9, 6);
	fake_put64(L + 0x20, F3 + 8);
	fake_put64(L + 0x38, LS);
	fake_put64(L + 0x50, AR);
	fake_put64(AR + 0x10, L);
	fake_put64(AR + 0x48, MAIN_RA);
}

/* A walk sampled in the interpreter, BASE @rdx and PC @rbx. */
static struct vmstack_walk lj_walk(const struct vmstack_vm_desc *d, unsigned long rdx,
				   unsigned long rbx)
{
	struct vmstack_walk w = { .ips = ips, .max = 64, .ip = VM_LO + 0x10, .sp = AR,
				  .reads_left = VMSTACK_MAX_READS, .deadline = ~0ULL,
				  .vms = desc4_of(d, 1), .nr_vms = 1 };

	memset(ips, 0, sizeof(ips));
	w.regs[VMSTACK_VM_REG_RDX] = rdx;
	w.regs[VMSTACK_VM_REG_RBX] = rbx;
	return w;
}

static u64 word(unsigned int kind, u64 value)
{
	return vmstack_vmw(kind, 0, value);
}

/* No word of @ips[0..n) is a builtin's. */
static bool no_builtin(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (vmstack_is_vmw(ips[i]) && vmstack_vmw_kind(ips[i]) == VMSTACK_VMW_BUILTIN)
			return false;
	return true;
}

/* The whole stack, the builtin by its ffid; its memory reused after the sample changes nothing. */
UNIT_TEST(walk_checks_builtin_by_kind)
{
	struct vmstack_vm_desc d = lj_desc();
	struct vmstack_walk w;

	CHECK(vmstack_desc3_check(&d) == NULL);
	lj_stack();
	w = lj_walk(&d, F3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 6);
	CHECK(ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[2] == P2);
	CHECK(ips[3] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[4] == P1);
	CHECK(ips[5] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);
	/* Without F_BUILTIN_KIND the word is the function, named later from memory. */
	d.flags &= ~VMSTACK_VM_F_BUILTIN_KIND;
	w = lj_walk(&d, F3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, BI));
	/* pcall keeps a frame delta in PC: the function is what counts. */
	d = lj_desc();
	w = lj_walk(&d, F3 + 8, 16 + 6);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
}

/*
 * A frame caught returning: its results are stored over its function (a
 * table, whose nomm 0xff read as an ffid was "[builtin 255]"), or a
 * function returned (pairs returns next, never called): the PC register
 * is the frame's own return PC. Shown unverified, the callers below.
 */
UNIT_TEST(walk_checks_frame_left)
{
	struct vmstack_vm_desc d = lj_desc();
	struct vmstack_walk w;

	lj_stack();
	fake_put64(F3 - 8, (0x1fff4ULL << 47) | TAB);
	w = lj_walk(&d, F3 + 8, P2);
	CHECK(vmstack_walk_user(&w) == 6);
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_EDGE));
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[5] == MAIN_RA);
	CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_UNVERIFIED));
	/* A function in the slot, the PC its return PC: unverified all the same. */
	fake_put64(F3 - 8, TFUNC | BI);
	w = lj_walk(&d, F3 + 8, P2);
	CHECK(vmstack_walk_user(&w) == 6 && no_builtin(6));
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_EDGE));
	/* rbx not the link: the table is still no function. */
	fake_put64(F3 - 8, (0x1fff4ULL << 47) | TAB);
	w = lj_walk(&d, F3 + 8, 16 + 6);
	CHECK(vmstack_walk_user(&w) == 6 && no_builtin(6));
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_NOT_FUNC));
	/* Without the checks: the table's nomm was taken for an ffid. */
	d.flags &= ~(VMSTACK_VM_F_FUNC_CHECK | VMSTACK_VM_F_PC_CHECK);
	w = lj_walk(&d, F3 + 8, P2);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, 0xff));
}

/* Below the top, frames are at rest: one that fails a check cuts the walk. */
UNIT_TEST(walk_checks_cut_below_top)
{
	struct vmstack_vm_desc d = lj_desc();
	struct vmstack_walk w;

	lj_stack();
	/* inner's slot holds a table: the builtin (it runs), then the cut. */
	fake_put64(F2 - 8, (0x1fff4ULL << 47) | TAB);
	w = lj_walk(&d, F3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 3 && ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
	CHECK(ips[1] == word(VMSTACK_VMW_BROKEN, VMB_CHECK) && ips[2] == MAIN_RA);
	CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
	/* inner's slot holds a builtin: a return PC needs a Lua caller. */
	fake_put64(F2 - 8, TFUNC | BI);
	w = lj_walk(&d, F3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 3 && ips[1] == word(VMSTACK_VMW_BROKEN, VMB_CHECK));
	/* The return PC outside inner's bytecode (outer's): not inner's callee. */
	fake_put64(F2 - 8, TFUNC | INNER);
	fake_put32(BC(PT_OUT) + 4 * 8 - 4, 1 << 8 | 0x42);
	fake_put64(F3, BC(PT_OUT) + 4 * 8);
	w = lj_walk(&d, F3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 3 && ips[1] == word(VMSTACK_VMW_BROKEN, VMB_CHECK));
}

/*
 * rdx is not BASE (clobbered by a C call): L->base's frame is the top.
 * The frame a C fallback returns from holds its result (a table) and rbx
 * its link: unverified. rbx elsewhere (LuaJIT's vm_return keeps a base
 * there) says nothing: a function is shown, without that PC.
 */
UNIT_TEST(walk_checks_from_state)
{
	struct vmstack_vm_desc d = lj_desc();
	struct vmstack_walk w;

	lj_stack();
	fake_put64(F3 - 8, (0x1fff4ULL << 47) | TAB);
	w = lj_walk(&d, 0x1234, P2);
	CHECK(vmstack_walk_user(&w) == 6 && no_builtin(6));
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_EDGE));
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[2] == P2);
	w = lj_walk(&d, 0x1234, LS + 0x40);
	CHECK(vmstack_walk_user(&w) == 6 && no_builtin(6));
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_NOT_FUNC));
	fake_put64(F3 - 8, TFUNC | BI);
	w = lj_walk(&d, 0x1234, LS + 0x40);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
	/* A Lua function at the top: rbx is its PC where it lies in its code. */
	fake_put64(L + 0x20, F2 + 8);
	w = lj_walk(&d, 0x1234, BC(PT_IN) + 4 * 9);
	CHECK(vmstack_walk_user(&w) == 5);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[1] == BC(PT_IN) + 4 * 9);
	w = lj_walk(&d, 0x1234, BC(PT_OUT) + 4 * 9);
	CHECK(vmstack_walk_user(&w) == 5);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[1] == 0);
	/*
	 * rdx above the top, where a frame left holds a table and a link
	 * that rbx equals: unverified, but the walk below it fails; from
	 * L->base the stack is whole, and no flag stays behind.
	 */
	fake_put64(L + 0x20, F3 + 8);
	fake_put64(F3 + 8 * 3, (0x1fff4ULL << 47) | TAB);
	fake_put64(F3 + 8 * 4, HEAP + 0x5000);
	w = lj_walk(&d, F3 + 8 * 5, HEAP + 0x5000);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
	CHECK(w.flags == VMSTACK_SF_VM);
}

/*
 * inner is a vararg function: its frame (link P1) lies under a hidden
 * vararg frame, where it runs and calls from: the PC goes down to it.
 */
UNIT_TEST(walk_checks_vararg)
{
	struct vmstack_vm_desc d = lj_desc();
	const unsigned long fv = F2 + 8 * 4, f3 = fv + 8 * (2 + 1);
	struct vmstack_walk w;

	lj_stack();
	fake_put64(fv - 8, TFUNC | INNER);
	fake_put64(fv, (fv - F2) | 3);		/* FRAME_VARG */
	fake_put64(f3 - 8, TFUNC | BI);
	fake_put64(f3, P2);
	fake_put64(L + 0x20, f3 + 8);
	w = lj_walk(&d, f3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 6 && ips[0] == word(VMSTACK_VMW_BUILTIN, 42));
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[2] == P2);
	CHECK(ips[3] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[4] == P1);
	/* Called from outer's code, by the link: not inner's callee. */
	fake_put32(BC(PT_OUT) + 4 * 8 - 4, 1 << 8 | 0x42);
	fake_put64(f3, BC(PT_OUT) + 4 * 8);
	w = lj_walk(&d, f3 + 8, BCFF + 4);
	CHECK(vmstack_walk_user(&w) == 3 && ips[1] == word(VMSTACK_VMW_BROKEN, VMB_CHECK));
}

/* An ffid past the build's last builtin is no builtin's. */
UNIT_TEST(walk_checks_kind_max)
{
	struct vmstack_vm_desc d = lj_desc();
	struct vmstack_walk w;

	lj_stack();
	fake_put8(BI + 0xa, 250);
	w = lj_walk(&d, F3 + 8, 16 + 6);
	CHECK(vmstack_walk_user(&w) == 6 && no_builtin(6));
	CHECK(ips[0] == word(VMSTACK_VMW_UNVERIFIED, VMSTACK_VMU_KIND));
}

UNIT_TEST(walk_checks_desc)
{
	struct vmstack_vm_desc d = lj_desc();

	d.pc_unit = 0;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = lj_desc();
	d.link = VMSTACK_VM_LINK_POINTER;
	d.flags &= ~VMSTACK_VM_F_AR_EMPTY;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = lj_desc();
	d.flags |= VMSTACK_VM_F_KIND_WORD;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = lj_desc();
	d.pad_3_6[4] = 1;
	CHECK(vmstack_desc3_check(&d) != NULL);
}
