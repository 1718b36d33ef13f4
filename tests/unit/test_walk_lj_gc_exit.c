// SPDX-License-Identifier: GPL-2.0
/*
 * C code that LuaJIT's compiled code reached without a frame of the
 * interpreter's, on a fake GC64 stack. A garbage collector's step called
 * from a trace (F_JIT_AREAS): G->vmstate names no trace, but the JIT's
 * code areas hold the return address; the Lua frames come from
 * G->jit_base. A trace exit (F_JIT_EXIT): the sample in C code that
 * vm_exit_handler called (lj_trace_exit), whose native frame lies in the
 * interpreter's code with no cframe at its sp; the Lua frames come from
 * L->base, which the handler has set (in the handler's own code, from
 * jit_base until it clears it). Both go on from the interpreter's
 * cframe (L->cframe), and never from a frame the anchor does not prove.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "lj_gc64_desc.h"
#include "unit.h"
#include "walk.h"

#define STACK	0x7ff000000000UL
#define HEAP	0x10000000UL
#define VM_LO	0x400000UL		/* the interpreter's code, the handler's too */
#define VM_HI	0x401000UL
#define HANDLER_RA (VM_LO + 0x800)	/* after the handler's call of lj_trace_exit */
#define ENTRY	(VM_LO + 0x900)		/* lj_vm_exit_interp: lea rcx, [rsp+16]... */
#define ENTRY_END (ENTRY + 15)		/* ...mov rsp, rcx ends here */
#define EXIT_C	0x600000UL		/* lj_trace_exit: no rules, a frame pointer */
#define MAIN_RA	0x500100UL

#define C_BP	(STACK + 0x40)		/* lj_trace_exit's frame */
#define EX	(C_BP + 16)		/* the handler's rsp: ExitState */
#define AR	(STACK + 0x400)		/* the interpreter's cframe */
#define L	HEAP			/* gct +9, base +0x20, stack +0x38, cframe +0x50 */
#define LS	(HEAP + 0x2000)
#define G	(HEAP + 0x4000)		/* vmstate +0xb8, cur_L +0x170, jit_base +0x178, */
					/* mcarea +0x180; DISPATCH = G + 0x100 */
#define AREA1	0x7f0000000000UL	/* the JIT's code areas: the newest... */
#define AREA2	0x7f0000100000UL	/* ...links to this one */
#define TRACE_RA (AREA2 + 0x1234)	/* lj_gc_step_jit's return address */
#define GC_C	0x610000UL		/* lj_gc_step: no rules, a frame pointer */
#define GC_STATE	(~2)		/* ~LJ_VMST_GC */
#define OUTER	(HEAP + 0x800)
#define INNER	(HEAP + 0x840)
#define PT_OUT	(HEAP + 0x1000)
#define PT_IN	(HEAP + 0x1200)
#define BC(pt)	((pt) + 0x68)
#define F1	(LS + 0x10)
#define F2	(F1 + 8 * (2 + 2))
#define P1	(BC(PT_OUT) + 4 * 4)
#define TFUNC	(0x1fff7ULL << 47)
#define EXIT_STATE	(~3)		/* ~LJ_VMST_EXIT */
#define VMB_STATE	1

static u64 ips[64];

static struct vmstack_vm_desc exit_desc(void)
{
	struct vmstack_vm_desc d = lj_gc64_desc(VM_LO, VM_HI);

	d.flags |= VMSTACK_VM_F_JIT | VMSTACK_VM_F_JIT_EXIT;
	d.jit_reg = VMSTACK_VM_REG_R14;
	d.jit_anchor_adj = -0x100;
	d.jit_id_off = 0xb8;
	d.jit_state_off = 0x170;
	d.jit_table_off = 0x200;
	d.jit_count_off = 0x208;
	d.jit_code_off = 0x58;
	d.jit_size_off = 0x54;
	d.jit_top_off = 0x178;
	d.flags |= VMSTACK_VM_F_JIT_AREAS;
	d.jit_area_off = 0x180;
	d.jit_areas_max = 4;
	d.exit_anchor_off = 16 * 8 + 14 * 8;
	d.exit_state = EXIT_STATE;
	d.exit_gc_state = GC_STATE;
	return d;
}

static void lj_fn(unsigned long fn, unsigned long pc)
{
	fake_put8(fn + 9, 8);
	fake_put64(fn + 0x20, pc);
}

/* outer (entered from C) called inner, whose trace exits; L->base is inner's. */
static void exit_stack(void)
{
	fake_mem_reset();
	fake_mem_map(STACK, 0x10000);
	fake_mem_map(HEAP, 0x10000);
	fake_mem_map(AREA1, 0x1000);
	fake_mem_map(AREA2, 0x1000);
	lj_fn(OUTER, BC(PT_OUT));
	lj_fn(INNER, BC(PT_IN));
	fake_put32(PT_OUT + 0xc, 16);
	fake_put32(PT_IN + 0xc, 16);
	fake_put32(P1 - 4, 2 << 8 | 0x42);	/* CALL A=2 */
	fake_put64(F1 - 8, TFUNC | OUTER);
	fake_put64(F1, (F1 - LS) | 1);		/* FRAME_C */
	fake_put64(F2 - 8, TFUNC | INNER);
	fake_put64(F2, P1);
	fake_put8(L + 9, 6);
	fake_put64(L + 0x20, F2 + 8);
	fake_put64(L + 0x38, LS);
	fake_put64(L + 0x50, AR | 1);		/* a flag bit, masked */
	fake_put64(AR + 0x10, L);
	fake_put64(AR + 0x40, 0);
	fake_put64(AR + 0x48, MAIN_RA);
	fake_put32(G + 0xb8, (u32)EXIT_STATE);
	fake_put64(G + 0x170, L);
	fake_put64(G + 0x178, F2 + 8);		/* the trace's BASE: inner's */
	fake_put64(G + 0x180, AREA1);
	fake_put64(AREA1, AREA2);		/* MCLink: next, size */
	fake_put64(AREA1 + 8, 0x10000);
	fake_put64(AREA2, 0);
	fake_put64(AREA2 + 8, 0x10000);
	/* lj_trace_exit's frame, then the handler's saved r14. */
	fake_put64(C_BP, 0);
	fake_put64(C_BP + 8, HANDLER_RA);
	fake_put64(EX + 16 * 8 + 14 * 8, G + 0x100);
}

static unsigned int exit_walk(const struct vmstack_vm_desc *d, unsigned long ip,
			      unsigned long sp, unsigned long bp, struct vmstack_walk *w)
{
	*w = (struct vmstack_walk){ .ips = ips, .max = 64, .ip = ip, .sp = sp, .regs = { 0 },
				    .reads_left = VMSTACK_MAX_READS, .deadline = ~0ULL,
				    .vms = desc4_of(d, 1), .nr_vms = 1 };
	w->regs[VMSTACK_VM_REG_RBP] = bp;
	w->regs[VMSTACK_VM_REG_R14] = G + 0x100;	/* DISPATCH, unless C code reused it */
	memset(ips, 0, sizeof(ips));
	return vmstack_walk_user(w);
}

static u64 word(unsigned int kind, u64 value)
{
	return vmstack_vmw(kind, 0, value);
}

UNIT_TEST(walk_lj_trace_exit)
{
	struct vmstack_vm_desc d = exit_desc();
	struct vmstack_walk w;

	CHECK(vmstack_desc3_check(&d) == NULL);
	d.flags |= VMSTACK_VM_F_JIT_NEAR | VMSTACK_VM_F_CONT_BOTTOM | VMSTACK_VM_F_VM_STATE |
		   VMSTACK_VM_F_CONT_PC | VMSTACK_VM_F_IDENT_TAG;
	d.cont_pc_off = -16;
	d.ident_tag_off = 0x48;
	d.jit_near_max = 16;
	d.vms_g_off = 0x10;
	d.vms_off = 0xb8;
	d.vms_gc = ~2;
	d.vms_jit_lo = ~6;
	d.vms_jit_hi = ~3;
	d.exit_entry_start = ENTRY;
	d.exit_entry_end = ENTRY_END;
	fprintf(stderr, "  LuaJIT's program (GC64, every flag luajit.c sets): %u of %u instructions\n",
		desc4_of(&d, 1)->prog_len, VMSTACK_VM4_PROG_MAX);
	d = exit_desc();
	exit_stack();
	/* lj_trace_exit, inner and outer (from L->base; jit_base cleared), then main. */
	fake_put64(G + 0x178, 0);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 6);
	CHECK(ips[0] == EXIT_C);
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN));
	CHECK(ips[3] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[4] == P1);
	CHECK(ips[5] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);
	/* lj_trace_exit's protected call (lj_vm_cpcall) linked its cframe below. */
	fake_put64(STACK + 0x20 + 0x20, AR | 1);
	fake_put64(L + 0x50, STACK + 0x20);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 6 && ips[5] == MAIN_RA);
	fake_put64(L + 0x50, AR | 1);
	/* lj_trace_exit stepping the GC: the same. */
	fake_put32(G + 0xb8, (u32)GC_STATE);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 6 && ips[5] == MAIN_RA);
	/* G->vmstate a trace's number: no exit; the handler's frame stays, cut. */
	fake_put32(G + 0xb8, 7);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 3);
	CHECK(ips[1] == word(VMSTACK_VMW_BROKEN, VMB_STATE) && ips[2] == HANDLER_RA);
	/* The saved r14 not a DISPATCH: the same. */
	fake_put32(G + 0xb8, (u32)EXIT_STATE);
	fake_put64(EX + 16 * 8 + 14 * 8, G + 0x1000);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 3);
	CHECK(ips[1] == word(VMSTACK_VMW_BROKEN, VMB_STATE));
	/*
	 * Sampled in the handler's own code, before it has moved jit_base to
	 * L->base: L->base is older (outer's), the frames start at jit_base
	 * (inner's). The handler's frame is not shown; main follows.
	 */
	fake_put64(EX + 16 * 8 + 14 * 8, G + 0x100);
	fake_put64(L + 0x20, F1 + 8);
	fake_put64(G + 0x178, F2 + 8);
	CHECK(exit_walk(&d, HANDLER_RA, EX, 0, &w) == 5);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, PT_IN));
	CHECK(ips[2] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[3] == P1);
	CHECK(ips[4] == MAIN_RA && w.flags == VMSTACK_SF_VM);
	/* ...and after it cleared jit_base: from L->base (here outer's). */
	fake_put64(G + 0x178, 0);
	CHECK(exit_walk(&d, HANDLER_RA, EX, 0, &w) == 3);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[2] == MAIN_RA);
	fake_put64(L + 0x20, F2 + 8);
	/* Before its ExitState is laid out: the saved r14 is not there; cut. */
	CHECK(exit_walk(&d, HANDLER_RA, EX + 8, 0, &w) == 2);
	CHECK(ips[0] == word(VMSTACK_VMW_BROKEN, VMB_STATE) && ips[1] == HANDLER_RA);
	/*
	 * A trace returning to the interpreter through lj_vm_exit_interp,
	 * before rsp is the cframe again: the anchor is r14 (DISPATCH),
	 * G->vmstate the trace's number, the frames start at jit_base
	 * (inner's); the handler joins there too, rsp its ExitState.
	 */
	d.exit_entry_start = ENTRY;
	d.exit_entry_end = ENTRY_END;
	CHECK(vmstack_desc3_check(&d) == NULL);
	fake_put32(G + 0xb8, 7);
	fake_put64(G + 0x178, F2 + 8);
	CHECK(exit_walk(&d, ENTRY, EX + 0x100, 0, &w) == 5);
	CHECK(ips[0] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[4] == MAIN_RA);
	CHECK(exit_walk(&d, ENTRY_END - 1, EX + 0x80, 0, &w) == 5 && ips[4] == MAIN_RA);
	/* Past them, a state at sp or the handler's saved r14 (neither here): cut. */
	CHECK(exit_walk(&d, ENTRY_END, EX + 0x80, 0, &w) == 2);
	CHECK(ips[0] == word(VMSTACK_VMW_BROKEN, VMB_STATE) && ips[1] == ENTRY_END);
	/* A handler's entry not in the code is refused. */
	d.exit_entry_end = VM_HI + 1;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d.exit_entry_end = 0;
	fake_put32(G + 0xb8, (u32)EXIT_STATE);
	/* Without F_JIT_EXIT, as before: cut. */
	d.flags &= ~VMSTACK_VM_F_JIT_EXIT;
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 3);
	CHECK(ips[1] == word(VMSTACK_VMW_BROKEN, VMB_STATE));
}

UNIT_TEST(walk_lj_gc_step_from_trace)
{
	struct vmstack_vm_desc d = exit_desc();
	unsigned long seen[VMSTACK_VM_MAX] = { 0 };
	struct vmstack_walk w;

	exit_stack();
	fake_put32(G + 0xb8, (u32)GC_STATE);
	fake_put64(C_BP + 8, TRACE_RA);
	/* lj_gc_step, then inner and outer (from jit_base), then main: no trace frame. */
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 6);
	CHECK(ips[0] == GC_C);
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN));
	CHECK(ips[3] == word(VMSTACK_VMW_SCRIPT, PT_OUT) && ips[4] == P1);
	CHECK(ips[5] == MAIN_RA && w.flags == VMSTACK_SF_VM);
	/* r14 reused by the GC's C code: only the anchor proved before serves. */
	w = (struct vmstack_walk){ .ips = ips, .max = 64, .ip = GC_C, .sp = C_BP - 8,
				   .reads_left = VMSTACK_MAX_READS, .deadline = ~0ULL,
				   .vms = desc4_of(&d, 1), .nr_vms = 1, .jit_seen = seen };
	w.regs[VMSTACK_VM_REG_RBP] = C_BP;
	w.regs[VMSTACK_VM_REG_R14] = 0x1234;
	memset(ips, 0, sizeof(ips));
	CHECK(vmstack_walk_user(&w) == 2 && ips[1] == TRACE_RA);
	seen[0] = G;
	w.n = 0;
	w.flags = 0;
	w.reads_left = VMSTACK_MAX_READS;
	w.jit_done = w.jit_dead = 0;
	memset(ips, 0, sizeof(ips));
	CHECK(vmstack_walk_user(&w) == 6 && ips[5] == MAIN_RA);
	/* An area not page-aligned, or larger than any, proves nothing. */
	fake_put64(G + 0x180, AREA1 + 8);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 2 && ips[1] == TRACE_RA);
	fake_put64(G + 0x180, AREA1);
	fake_put64(AREA1 + 8, ~0UL);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 2 && ips[1] == TRACE_RA);
	/* A return address in no area (past each one's size): unclaimed. */
	fake_put64(AREA1 + 8, 0x100);
	fake_put64(AREA2 + 8, 0x100);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 2 && ips[1] == TRACE_RA);
	/* Without F_JIT_AREAS, as before: the stack ends at the trace. */
	fake_put64(AREA2 + 8, 0x10000);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 6);
	d.flags &= ~VMSTACK_VM_F_JIT_AREAS;
	d.jit_area_off = 0;
	d.jit_areas_max = 0;
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 2 && ips[1] == TRACE_RA);
}

/*
 * Sampled in the VM's exit from an activation (lj_vm_leave_unw: the
 * cframe unlinked, then add rsp and pops): at sp + ar_off a stale slot
 * names L, whose chain does not hold it (no frames of its own), and the
 * "caller" it gives is no code. With rules, that ends the stack, cut;
 * a caller in code with rules is taken as before.
 */
UNIT_TEST(walk_lj_leaf_unlinked)
{
	struct vmstack_vm_desc d = exit_desc();
	struct vmstack_uw_table *t = calloc(1, sizeof(*t) + sizeof(t->rows[0]));
	struct vmstack_uw_set *set = calloc(1, sizeof(*set) + sizeof(set->maps[0]));
	const unsigned long s = STACK + 0x800;
	struct vmstack_walk w;

	t->span = 0x1000;
	t->nrows = 1;
	t->rows[0] = (struct vmstack_uw_row){ .start = 0, .cfa_off = 16,
		.cfa = VMSTACK_UW_CFA_RSP, .rbp = VMSTACK_UW_RBP_SAME };
	set->nr = 1;
	set->maps[0] = (struct vmstack_uw_place){ .start = MAIN_RA & ~0xfffUL,
						  .end = (MAIN_RA & ~0xfffUL) + 0x1000, .t = t };
	exit_stack();
	fake_put64(s + 0x10, L);		/* a stale SAVE_L */
	fake_put64(s + 0x48, 0x268);		/* and a stale "return address" */
	/* Frame pointers only: nothing tells it is no code (as before). */
	CHECK(exit_walk(&d, VM_LO + 0x10, s, 0, &w) >= 1 && ips[0] == 0x268);
	/* With rules: cut, and the stack ends. */
	exit_walk(&d, VM_LO + 0x10, s, 0, &w);
	w.rules = set;
	w.n = 0;
	w.flags = 0;
	w.reads_left = VMSTACK_MAX_READS;
	memset(ips, 0, sizeof(ips));
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(ips[0] == word(VMSTACK_VMW_BROKEN, 2) && (w.flags & VMSTACK_SF_VM_BROKEN));
	/* A caller in code with rules: taken. */
	fake_put64(s + 0x48, MAIN_RA);
	w.n = 0;
	w.flags = 0;
	w.reads_left = VMSTACK_MAX_READS;
	memset(ips, 0, sizeof(ips));
	CHECK(vmstack_walk_user(&w) >= 1 && ips[0] == MAIN_RA);
	free(t);
	free(set);
}

/*
 * Sampled in lj_vm_leave_unw's epilogue (add rsp, 0x28; pop r14; pop r15;
 * pop rbx; pop rbp; ret): at each instruction the caller comes from the
 * code, whatever the slot at sp + ar_off holds, and the native frame stays
 * as the sampled pc; rbp is its slot's until its pop has run.
 */
UNIT_TEST(walk_lj_leave_epilogue)
{
	static const u8 code[] = { 0x48, 0x83, 0xc4, 0x28, 0x41, 0x5e, 0x41, 0x5f,
				   0x5b, 0x5d, 0xc3 };
	static const unsigned int at[] = { 0, 4, 6, 8, 9, 10 };	/* each instruction */
	struct vmstack_vm_desc d = exit_desc();
	const unsigned long s = STACK + 0x800, pc = VM_LO + 0x10;
	struct vmstack_walk w;
	unsigned int i;

	exit_stack();
	fake_mem_map(VM_LO, 0x1000);
	for (i = 0; i < sizeof(code); i++)
		fake_put8(pc + i, code[i]);
	fake_put64(s + 0x10, L);		/* a stale SAVE_L */
	fake_put64(s + 0x40, s + 0x100);	/* the caller's rbp, then its return address */
	fake_put64(s + 0x48, MAIN_RA);
	fake_put64(s + 0x100, 0);		/* main's frame */
	fake_put64(s + 0x108, MAIN_RA + 0x100);
	for (i = 0; i < 6; i++) {
		unsigned long sp = s + (i ? 0x20 + 8 * i : 0);

		/* The live rbp is the VM's until the pop, the caller's after. */
		CHECK(exit_walk(&d, pc + at[i], sp, i < 5 ? 0x1234 : s + 0x100, &w) == 3);
		CHECK(ips[0] == pc + at[i] && ips[1] == MAIN_RA && ips[2] == MAIN_RA + 0x100);
		CHECK(!(w.flags & VMSTACK_SF_VM_BROKEN));
	}
	/* At the ret, rbp was popped already: the live one is taken. */
	CHECK(exit_walk(&d, pc + 10, s + 0x48, 0x1234, &w) == 2 && ips[1] == MAIN_RA);
	/* An add that is no frame's (negative), or no pop before the ret: none. */
	fake_put8(pc + 3, 0xf8);
	CHECK(exit_walk(&d, pc, s, 0x1234, &w) >= 1 && ips[0] != pc);
	fake_put8(pc + 3, 0x28);
	fake_put8(pc + 8, 0x90);
	CHECK(exit_walk(&d, pc + 6, s + 0x30, 0x1234, &w) >= 1 && ips[0] != pc + 6);
	/* An epilogue cut by the end of the code's page reads as none. */
	exit_stack();
	fake_mem_map(VM_LO, 0x1000);
	fake_put8(VM_LO + 0xfff, 0x5d);
	fake_put64(s + 0x48, MAIN_RA);
	CHECK(exit_walk(&d, VM_LO + 0xfff, s + 0x40, 0x1234, &w) >= 1 && ips[0] != VM_LO + 0xfff);
}

/* exit_walk with unwind rules (@set) and a lookup cache. */
static unsigned int entry_walk(const struct vmstack_vm_desc *d, struct vmstack_uw_set *set,
			       unsigned long ip, unsigned long sp, unsigned long bp,
			       struct vmstack_walk *w)
{
	exit_walk(d, ip, sp, bp, w);
	w->rules = set;
	w->n = 0;
	w->flags = 0;
	w->faults = 0;
	w->reads_left = VMSTACK_MAX_READS;
	memset(ips, 0, sizeof(ips));
	return vmstack_walk_user(w);
}

/*
 * Sampled in lj_vm_call's prologue (push rbp; push rbx; push r15;
 * push r14; sub rsp, 0x28): at each of those instructions the pushes and
 * the sub still to run, with the descriptor's frame, say where the
 * return address is; the native frame stays as the sampled pc, and rbp
 * is its slot's once pushed.
 */
UNIT_TEST(walk_lj_entry_prologue)
{
	static const u8 code[] = { 0x55, 0x53, 0x41, 0x57, 0x41, 0x56, 0x48, 0x83, 0xec, 0x28 };
	static const unsigned int at[] = { 0, 1, 2, 4, 6 };	/* after 0..4 pushes */
	const unsigned long f = VM_LO + 0x40, ret = STACK + 0x848, main_bp = STACK + 0x900;
	const unsigned long rel = f - MAIN_RA;
	struct vmstack_vm_desc d = exit_desc();
	struct vmstack_uw_table *t = calloc(1, sizeof(*t) + sizeof(t->rows[0]));
	struct vmstack_uw_set *set = calloc(1, sizeof(*set) + sizeof(set->maps[0]));
	struct vmstack_walk w;
	unsigned int j;

	/* The caller's code has rows (a frame-pointer rule, as main's). */
	t->span = 0x1000;
	t->nrows = 1;
	t->rows[0] = (struct vmstack_uw_row){ .start = 0, .cfa_off = 16,
		.cfa = VMSTACK_UW_CFA_RBP, .rbp = VMSTACK_UW_RBP_SAVED, .rbp_off = -16 };
	set->nr = 1;
	set->maps[0] = (struct vmstack_uw_place){ .start = MAIN_RA & ~0xfffUL,
						  .end = (MAIN_RA & ~0xfffUL) + 0x1000, .t = t };
	exit_stack();
	fake_mem_map(VM_LO, 0x1000);
	fake_mem_map(MAIN_RA & ~0xfffUL, 0x1000);
	for (j = 0; j < sizeof(code); j++)
		fake_put8(f + j, code[j]);
	fake_put8(MAIN_RA - 5, 0xe8);		/* call f */
	fake_put32(MAIN_RA - 4, (u32)rel);
	fake_put64(ret, MAIN_RA);
	fake_put64(ret - 8, main_bp);		/* the first push: rbp */
	fake_put64(ret - 0x38, L);		/* a stale SAVE_L where the cframe will be */
	fake_put64(main_bp, 0);
	fake_put64(main_bp + 8, MAIN_RA + 0x100);
	for (j = 0; j <= 4; j++) {
		/* rbp is the caller's, live before its push, its slot's after. */
		CHECK(entry_walk(&d, set, f + at[j], ret - 8 * j, j ? 0x1234 : main_bp, &w) == 3);
		CHECK(ips[0] == f + at[j] && ips[1] == MAIN_RA && ips[2] == MAIN_RA + 0x100);
		CHECK(!(w.flags & VMSTACK_SF_VM_BROKEN));
	}
	/* Without rules the caller's code is not read: the stack goes on as before. */
	CHECK(exit_walk(&d, f + 2, ret - 16, 0x1234, &w) >= 1 && ips[0] != f + 2);
	/* Reached by a tail jump (lua_call's): the caller's call was of another function. */
	fake_put32(MAIN_RA - 4, (u32)(rel + 0x100));
	CHECK(entry_walk(&d, set, f + 2, ret - 16, 0x1234, &w) == 3 && ips[1] == MAIN_RA);
	/* A run that builds another frame than the descriptor's (sub rsp, 0x30): none. */
	fake_put8(f + 9, 0x30);
	CHECK(entry_walk(&d, set, f + 2, ret - 16, 0x1234, &w) >= 1 && ips[0] != f + 2);
	fake_put8(f + 9, 0x28);
	/* A "return address" in no code with rows: none. */
	fake_put64(ret, MAIN_RA + 0x2000);
	CHECK(entry_walk(&d, set, f + 2, ret - 16, 0x1234, &w) >= 1 && ips[0] != f + 2);
	free(t);
	free(set);
}

/*
 * F_VM_STATE: G->vmstate (G from L->glref) as a pseudo-frame above the Lua
 * frames, as jit.p's "v" mode names it: [GC] in a GC step, [JIT compiler]
 * from a trace exit to the assembler; nothing in other states, or when G
 * does not read.
 */
UNIT_TEST(walk_lj_vm_state_frames)
{
	struct vmstack_vm_desc d = exit_desc();
	const u64 gc = word(VMSTACK_VMW_BUILTIN, VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_GC);
	const u64 jit = word(VMSTACK_VMW_BUILTIN, VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_JIT);
	struct vmstack_walk w;

	d.flags |= VMSTACK_VM_F_VM_STATE;
	d.vms_g_off = 0x10;
	d.vms_off = 0xb8;
	d.vms_gc = GC_STATE;
	d.vms_jit_lo = ~6;
	d.vms_jit_hi = EXIT_STATE;
	CHECK(vmstack_desc3_check(&d) == NULL);
	exit_stack();
	fake_put64(L + 0x10, G);
	/* A GC step from a trace: [GC] on top of inner's frame. */
	fake_put32(G + 0xb8, (u32)GC_STATE);
	fake_put64(C_BP + 8, TRACE_RA);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 7);
	CHECK(ips[0] == GC_C && ips[1] == gc && ips[2] == word(VMSTACK_VMW_SCRIPT, PT_IN));
	CHECK(ips[6] == MAIN_RA);
	/* Another state there (in C): no pseudo-frame. */
	fake_put32(G + 0xb8, (u32)~1);
	CHECK(exit_walk(&d, GC_C, C_BP - 8, C_BP, &w) == 6);
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN));
	/* A trace exit (lj_trace_exit): [JIT compiler], as jit.p's "J". */
	fake_put64(C_BP + 8, HANDLER_RA);
	fake_put64(G + 0x178, 0);
	fake_put32(G + 0xb8, (u32)EXIT_STATE);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 7);
	CHECK(ips[1] == jit && ips[2] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[6] == MAIN_RA);
	/* G unreadable: the frames alone. */
	fake_put64(L + 0x10, 0x1000);
	CHECK(exit_walk(&d, EXIT_C, C_BP - 8, C_BP, &w) == 6);
	CHECK(ips[1] == word(VMSTACK_VMW_SCRIPT, PT_IN) && ips[5] == MAIN_RA);
	/* A range past 2^31 - 1 is refused. */
	d.vms_jit_lo = INT32_MIN;
	d.vms_jit_hi = 0;
	CHECK(vmstack_desc3_check(&d) != NULL);
}
