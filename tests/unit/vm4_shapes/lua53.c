// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.3: CallInfos linked by previous from L->ci down to the
 * lua_State's own base_ci; luaV_execute marks the CallInfo it was entered
 * with CIST_FRESH, which ends its activation. C functions (C closures,
 * light C functions) have CallInfos too: they are on the native stack
 * already, so the program hides them.
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), Lua 5.3.6 (lua/lua
 * tag v5.3.6, checked in the disassembly of Debian's liblua5.3.so.0
 * 5.3.6-2): lua_State tt +8 (CommonHeader), ci +32, base_ci +96 (inline);
 * CallInfo func +0, previous +16, u.l.savedpc +40, callstatus +66 (u16,
 * CIST_FRESH 8); TValue tt_ +8: Lua closure 0x46, C closure 0x66, light C
 * function 0x16; LClosure p +24.
 *
 * Where L is: Debian's luaV_execute keeps it in r12, which at a frame
 * that is not the sampled one sits wherever a callee's CFI saved it; the
 * walk gives a program only that frame's sp, bp and pc. This shape keeps
 * L in a slot of the loop's native frame (bp - 8), as a build that
 * spills it would, and checks it by its type byte (LUA_TTHREAD, 8).
 *
 * The sandwich: main -> lua_pcallk -> luaV_execute (outer: the chunk,
 * fresh; g) -> g calls a C closure, which calls back with lua_callk
 * (C) -> luaV_execute (inner: f, fresh) -> f calls os.clock (a light C
 * function, sampled). The CallInfos from L->ci: os.clock, f, the C
 * closure, g, the chunk, base_ci.
 */
#include "shape.h"

#define L_TT		8
#define L_CI		32
#define L_BASE_CI	96
#define CI_FUNC		0
#define CI_PREVIOUS	16
#define CI_SAVEDPC	40
#define CI_CALLSTATUS	66
#define CI_SIZE		72
#define CIST_FRESH	8
#define LUA_TTHREAD	8
#define TAG_LCL		0x46
#define TAG_CCL		0x66
#define TAG_LCF		0x16
#define LCL_P		24
#define L_SLOT		(-8)	/* this shape's place for L in luaV_execute's frame */

/* r8: the next activation's CallInfo; r9: L; r10: 1 once L is found. */
static void lua53_prog(struct vm_prog *p)
{
	vm_label cont, loop, lua, next, fresh, done, bad, nostate;

	vm_prog_init(p);
	cont = vm_prog_label(p), loop = vm_prog_label(p), lua = vm_prog_label(p);
	next = vm_prog_label(p), fresh = vm_prog_label(p), done = vm_prog_label(p);
	bad = vm_prog_label(p), nostate = vm_prog_label(p);
	jk(p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	ld(p, 8, 9, 2, L_SLOT);
	ld(p, 1, 3, 9, L_TT);
	jk(p, VMSTACK_VM4_JNE_K, 3, LUA_TTHREAD, nostate);
	op(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	ld(p, 8, 8, 9, L_CI);
	bind(p, cont);
	bind(p, loop);
	/* The end of the list: base_ci, the thread's C level. */
	jk(p, VMSTACK_VM4_JEQ_K, 8, 0, done);
	op(p, VMSTACK_VM4_MOV, 3, 9, 0);
	op(p, VMSTACK_VM4_ADD_K, 3, 0, L_BASE_CI);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 8, 3, done);
	ld(p, 8, 3, 8, CI_FUNC);
	ld(p, 4, 4, 3, 8 /* tt_ */);
	jk(p, VMSTACK_VM4_JEQ_K, 4, TAG_LCL, lua);
	jk(p, VMSTACK_VM4_JEQ_K, 4, TAG_CCL, next);
	jk(p, VMSTACK_VM4_JEQ_K, 4, TAG_LCF, next);
	vm_prog_ja(p, bad);
	bind(p, lua);
	ld(p, 8, 3, 3, 0 /* value_.gc */);
	ld(p, 8, 3, 3, LCL_P);
	ld(p, 8, 4, 8, CI_SAVEDPC);
	op(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	ld(p, 2, 4, 8, CI_CALLSTATUS);
	jk(p, VMSTACK_VM4_JSET_K, 4, CIST_FRESH, fresh);
	bind(p, next);
	ld(p, 8, 8, 8, CI_PREVIOUS);
	vm_prog_ja(p, loop);
	bind(p, fresh);
	ld(p, 8, 8, 8, CI_PREVIOUS);
	bind(p, done);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, bad);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	bind(p, nostate);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/* A function value on the Lua stack: a TValue of @tag naming @gc. */
static u64 lua53_func(u64 gc, u32 tag)
{
	u64 tv = shape_alloc(16);

	fake_put64(tv, gc);
	fake_put32(tv + 8, tag);
	return tv;
}

/* A Lua closure of a fresh Proto; the Proto in *@proto. */
static u64 lua53_lclosure(u64 *proto)
{
	u64 cl = shape_alloc(40);

	*proto = shape_alloc(120);
	fake_put64(cl + LCL_P, *proto);
	return lua53_func(cl, TAG_LCL);
}

static u64 lua53_ci(u64 func, u64 previous, u64 savedpc, u16 status)
{
	u64 ci = shape_alloc(CI_SIZE);

	fake_put64(ci + CI_FUNC, func);
	fake_put64(ci + CI_PREVIOUS, previous);
	fake_put64(ci + CI_SAVEDPC, savedpc);
	fake_put16(ci + CI_CALLSTATUS, status);
	return ci;
}

UNIT_TEST(vm4_shape_lua53)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 L, chunk, g, f, fn_chunk, fn_g, fn_f, ci_chunk, ci_g, ci_ccl, ci_f, ci_clock;

	shape_mem();
	L = shape_alloc(208);
	fake_put8(L + L_TT, LUA_TTHREAD);
	/* base_ci: the C level, called into by lua_pcallk from main. */
	fake_put64(L + L_BASE_CI + CI_FUNC, lua53_func(0, 0));
	fn_chunk = lua53_lclosure(&chunk);
	fn_g = lua53_lclosure(&g);
	fn_f = lua53_lclosure(&f);
	/* callstatus: CIST_LUA (2) on Lua functions' CallInfos. */
	ci_chunk = lua53_ci(fn_chunk, L + L_BASE_CI, chunk + 0x500, 2 | CIST_FRESH);
	ci_g = lua53_ci(fn_g, ci_chunk, g + 0x510, 2);
	ci_ccl = lua53_ci(lua53_func(shape_alloc(40), TAG_CCL), ci_g, 0, 0);
	ci_f = lua53_ci(fn_f, ci_ccl, f + 0x520, 2 | CIST_FRESH);
	ci_clock = lua53_ci(lua53_func(SHAPE_LEAF, TAG_LCF), ci_f, 0, 0);
	fake_put64(L + L_CI, ci_clock);
	/* L where each luaV_execute's frame keeps it. */
	fake_put64(SHAPE_INNER_BP + L_SLOT, L);
	fake_put64(SHAPE_OUTER_BP + L_SLOT, L);
	lua53_prog(&p);
	shape_desc(&d, &p);
	CHECK(d.prog_len == 28);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x520,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x510,
			shape_word(VMSTACK_VMW_SCRIPT, chunk), chunk + 0x500,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
		/* The outer activation ended at the chunk: next is base_ci. */
		CHECK(w.vm_carry[0][0] == L + L_BASE_CI && w.vm_carry[0][1] == L);
	}
	{
		/* Not a lua_State where the frame keeps it: both native frames stay. */
		fake_put8(L + L_TT, 5 /* LUA_TTABLE */);
		shape_walk_check_stateless(&d, &w);
		CHECK(w.flags == VMSTACK_SF_VM_BROKEN);
		fake_put8(L + L_TT, LUA_TTHREAD);
	}
	{
		/* A value that is no function where a CallInfo's func points: cut there. */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x520,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x510,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};

		fake_put64(ci_chunk + CI_FUNC, lua53_func(0, 0x45 /* a table */));
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
	}
}
