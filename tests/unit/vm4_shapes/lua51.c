// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.1: CallInfos in an array, L->base_ci .. L->ci (stride 40), walked
 * down. 5.1 marks no fresh luaV_execute: a Lua function was entered by one
 * when its caller is C (lua_call, lua_pcall, or the thread's base_ci), or
 * when the caller is a Lua function whose current instruction,
 * *(caller->savedpc - 1), is not OP_CALL (28) or OP_TAILCALL (29): a
 * metamethod or a for iterator, which the loop calls through luaD_call.
 * The running function's pc is L->savedpc, not its CallInfo's.
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), Lua 5.1.5 (and Redis
 * 7.0's deps/lua, whose lstate.h is the same), from the source, with an
 * offsetof program built against it: lua_State tt +8, ci +40, savedpc
 * +48, end_ci +72, base_ci +80; CallInfo func +8, savedpc +24 (40 bytes);
 * TValue tt +8 (LUA_TFUNCTION 6 for Lua and C closures); Closure isC +10,
 * LClosure p +32; an instruction's opcode is its low 6 bits. No 5.1
 * binary was disassembled.
 *
 * Where L is: luaV_execute's first argument, build-specific; this shape
 * keeps it in a slot of the loop's native frame (bp - 8) and checks its
 * type byte (LUA_TTHREAD, 8), as lua53.c does.
 *
 * The sandwich: main -> lua_pcall -> luaV_execute (outer: the chunk; g,
 * which it called by OP_CALL) -> g indexes a table whose __index is the
 * Lua function h (OP_GETTABLE): luaV_gettable, luaD_call (C) ->
 * luaV_execute (inner: h) -> h calls print (a C function, sampled).
 */
#include "shape.h"

#define L_TT		8
#define L_CI		40
#define L_SAVEDPC	48
#define L_END_CI	72
#define L_BASE_CI	80
#define CI_FUNC		8
#define CI_SAVEDPC	24
#define CI_SIZE		40
#define LUA_TTHREAD	8
#define LUA_TFUNCTION	6
#define CL_ISC		10
#define LCL_P		32
#define OP_GETTABLE	6
#define OP_CALL		28
#define OP_TAILCALL	29
#define L_SLOT		(-8)

/*
 * Is the function of CallInfo @ci (register) C, or no function (base_ci
 * holds nil): to @c; else its Closure in @cl, on. Uses r4.
 */
static void lua51_is_c(struct vm_prog *p, int ci, int cl, vm_label c)
{
	ld(p, 8, cl, ci, CI_FUNC);
	ld(p, 4, 4, cl, 8 /* tt */);
	jk(p, VMSTACK_VM4_JNE_K, 4, LUA_TFUNCTION, c);
	ld(p, 8, cl, cl, 0 /* value.gc */);
	ld(p, 1, 4, cl, CL_ISC);
	jk(p, VMSTACK_VM4_JNE_K, 4, 0, c);
}

/*
 * r8: the next activation's CallInfo; r9: L; r10: 1 once L is found;
 * r11: base_ci.
 */
static void lua51_prog(struct vm_prog *p)
{
	vm_label cont, loop, saved, show, same, next, bottom, done, bad, nostate;

	vm_prog_init(p);
	cont = vm_prog_label(p), loop = vm_prog_label(p), saved = vm_prog_label(p);
	show = vm_prog_label(p), same = vm_prog_label(p), next = vm_prog_label(p);
	bottom = vm_prog_label(p), done = vm_prog_label(p), bad = vm_prog_label(p);
	nostate = vm_prog_label(p);
	jk(p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	ld(p, 8, 9, 2, L_SLOT);
	ld(p, 1, 3, 9, L_TT);
	jk(p, VMSTACK_VM4_JNE_K, 3, LUA_TTHREAD, nostate);
	op(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	ld(p, 8, 11, 9, L_BASE_CI);
	ld(p, 8, 8, 9, L_CI);
	/* L->ci inside the array. */
	ld(p, 8, 3, 9, L_END_CI);
	vm_prog_jmp(p, VMSTACK_VM4_JGT, 8, 3, bad);
	bind(p, cont);
	bind(p, loop);
	/* base_ci is the thread's C level: nothing below it to show. */
	vm_prog_jmp(p, VMSTACK_VM4_JLE, 8, 11, done);
	lua51_is_c(p, 8, 3, next);
	ld(p, 8, 3, 3, LCL_P);
	/* The running function's pc is the state's; the others saved theirs. */
	ld(p, 8, 4, 9, L_CI);
	vm_prog_jmp(p, VMSTACK_VM4_JNE, 8, 4, saved);
	ld(p, 8, 4, 9, L_SAVEDPC);
	vm_prog_ja(p, show);
	bind(p, saved);
	ld(p, 8, 4, 8, CI_SAVEDPC);
	bind(p, show);
	op(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	/* Did this luaV_execute begin here? Ask the caller. */
	op(p, VMSTACK_VM4_MOV, 7, 8, 0);
	op(p, VMSTACK_VM4_SUB_K, 7, 0, CI_SIZE);
	vm_prog_jmp(p, VMSTACK_VM4_JLE, 7, 11, bottom);
	lua51_is_c(p, 7, 3, bottom);
	ld(p, 8, 4, 7, CI_SAVEDPC);
	ld(p, 4, 4, 4, -4);
	op(p, VMSTACK_VM4_AND_K, 4, 0, 0x3f);
	jk(p, VMSTACK_VM4_JEQ_K, 4, OP_CALL, same);
	jk(p, VMSTACK_VM4_JEQ_K, 4, OP_TAILCALL, same);
	bind(p, bottom);
	op(p, VMSTACK_VM4_MOV, 8, 7, 0);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, same);
	bind(p, next);
	op(p, VMSTACK_VM4_SUB_K, 8, 0, CI_SIZE);
	vm_prog_ja(p, loop);
	bind(p, done);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, bad);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	bind(p, nostate);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/* CallInfo @ci calls @closure (a TValue of LUA_TFUNCTION); @savedpc. */
static void lua51_ci(u64 ci, u64 closure, u64 savedpc)
{
	u64 tv = shape_alloc(16);

	fake_put64(tv, closure);
	fake_put32(tv + 8, LUA_TFUNCTION);
	fake_put64(ci + CI_FUNC, tv);
	fake_put64(ci + CI_SAVEDPC, savedpc);
}

/*
 * A Lua closure of a new Proto whose instruction 3 is @op: the Proto in
 * *@proto, in *@pc the pc past that instruction (a savedpc there).
 */
static u64 lua51_lclosure(u64 *proto, u64 *pc, u8 op)
{
	u64 cl = shape_alloc(40), code = shape_alloc(64);

	*proto = shape_alloc(120);
	fake_put64(*proto + 24, code);
	/* An ABC instruction: A 1, C 3, B 2 above the opcode. */
	fake_put32(code + 12, op | 1u << 6 | 3u << 14 | 2u << 23);
	*pc = code + 16;
	fake_put64(cl + LCL_P, *proto);
	return cl;
}

UNIT_TEST(vm4_shape_lua51)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 L, cis, chunk, g, h, pc_chunk, pc_g, pc_h, cl_chunk, cl_g, cl_h, cl_print;

	shape_mem();
	L = shape_alloc(104);
	fake_put8(L + L_TT, LUA_TTHREAD);
	cis = shape_alloc(8 * CI_SIZE);
	fake_put64(L + L_BASE_CI, cis);
	fake_put64(L + L_END_CI, cis + 7 * CI_SIZE);
	cl_chunk = lua51_lclosure(&chunk, &pc_chunk, OP_CALL);
	cl_g = lua51_lclosure(&g, &pc_g, OP_GETTABLE);
	cl_h = lua51_lclosure(&h, &pc_h, OP_CALL);
	cl_print = shape_alloc(40);
	fake_put8(cl_print + CL_ISC, 1);
	/* base_ci's func is a nil slot; then the chunk, g, h, print. */
	fake_put64(cis + CI_FUNC, shape_alloc(16));
	lua51_ci(cis + 1 * CI_SIZE, cl_chunk, pc_chunk);
	lua51_ci(cis + 2 * CI_SIZE, cl_g, pc_g);
	lua51_ci(cis + 3 * CI_SIZE, cl_h, pc_h);
	lua51_ci(cis + 4 * CI_SIZE, cl_print, 0);
	fake_put64(L + L_CI, cis + 4 * CI_SIZE);
	fake_put64(L + L_SAVEDPC, 0x1234);	/* print is C: unused */
	fake_put64(SHAPE_INNER_BP + L_SLOT, L);
	fake_put64(SHAPE_OUTER_BP + L_SLOT, L);
	lua51_prog(&p);
	shape_desc(&d, &p);
	CHECK(d.prog_len == 44);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, h), pc_h,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), pc_g,
			shape_word(VMSTACK_VMW_SCRIPT, chunk), pc_chunk,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
		/* h began at g's OP_GETTABLE; the chunk at base_ci, where the walk ends. */
		CHECK(w.vm_carry[0][0] == cis && w.vm_carry[0][3] == cis);
	}
	{
		/* h itself running (the sample in a helper of the loop): L->savedpc is its pc. */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, h), pc_h + 8,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), pc_g,
			shape_word(VMSTACK_VMW_SCRIPT, chunk), pc_chunk,
			SHAPE_MAIN_RA,
		};

		fake_put64(L + L_CI, cis + 3 * CI_SIZE);
		fake_put64(L + L_SAVEDPC, pc_h + 8);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}
	{
		/*
		 * The rule alone: had g called h by OP_CALL, h would run in g's
		 * loop: the first activation takes all three, the next none.
		 */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, h), pc_h + 8,
			shape_word(VMSTACK_VMW_SCRIPT, g), pc_g,
			shape_word(VMSTACK_VMW_SCRIPT, chunk), pc_chunk,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			SHAPE_MAIN_RA,
		};

		fake_put32(pc_g - 4, OP_CALL | 1u << 6 | 2u << 23);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}
}
