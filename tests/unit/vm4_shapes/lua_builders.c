// SPDX-License-Identifier: GPL-2.0
/*
 * The Lua 5.1, 5.2 and 5.3 runtimes' own program builders (user/vm/lua/),
 * with their real layouts, on fake stacks in the shape of Debian's and
 * Redis's builds. Unlike lua51.c and lua53.c beside this file (sketches
 * that kept L in a frame slot), the loops here keep their state in a
 * callee-saved register as the real code does: 5.3's ci and Debian 5.1's
 * L in rbp (and 5.2's L), recovered frame by frame by unwind rules (no frame
 * pointers: the rule saves rbp at CFA - 0x100, as a prologue's push
 * would), Redis 5.1's L at sp + 0x58, where its loop's prologue saves
 * luaD_call's rbx.
 *
 * The sandwich, innermost first: a C function (sampled), the inner
 * loop, two C frames (a C function of the runtime calling back), the
 * outer loop, main. Native frame i has sp shape_frame_bp(i); its CFA is
 * sp + 0x100.
 */
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "vm/lua/lua51.h"
#include "vm/lua/lua52.h"
#include "vm/lua/lua_code.h"
#include "vm/lua/lua53.h"
#include "walk.h"

#define FRAME	0x100
#define NFRAMES	6

static const u64 ras[NFRAMES] = {
	SHAPE_LEAF, SHAPE_INNER_RA, SHAPE_MID1_RA, SHAPE_MID2_RA, SHAPE_OUTER_RA, SHAPE_MAIN_RA,
};

/* Native frames by unwind rules; frame i's rbp is @rbp[i]. */
static void frames(const u64 *rbp)
{
	unsigned int i;

	for (i = 0; i + 1 < NFRAMES; i++) {
		fake_put64(shape_frame_bp(i), rbp[i + 1]);
		fake_put64(shape_frame_bp(i) + FRAME - 8, ras[i + 1]);
	}
	fake_put64(shape_frame_bp(NFRAMES - 1) + FRAME - 8, 0);
}

/* Walk from the sampled C function with rbp @rbp0; compare with @want. */
static void walk_check(const struct vmstack_vm_desc4 *d, u64 rbp0, const u64 *want,
		       unsigned int n)
{
	struct vmstack_uw_table *t = calloc(1, sizeof(*t) + sizeof(t->rows[0]));
	struct vmstack_uw_set *set = calloc(1, sizeof(*set) + sizeof(set->maps[0]));
	static u64 ips[32];
	struct vmstack_walk w;
	unsigned int i, got;
	bool same;

	CHECK(t && set);
	if (!t || !set)
		return;
	t->span = 0x200000;
	t->nrows = 1;
	t->rows[0] = (struct vmstack_uw_row){ .start = 0, .cfa_off = FRAME,
		.cfa = VMSTACK_UW_CFA_RSP, .rbp = VMSTACK_UW_RBP_SAVED, .rbp_off = -FRAME };
	set->nr = 1;
	set->maps[0] = (struct vmstack_uw_place){ .start = SHAPE_VM_LO, .end = SHAPE_VM_LO + 0x200000, .t = t };
	memset(&w, 0, sizeof(w));
	memset(ips, 0, sizeof(ips));
	w.rules = set;
	w.vms = d;
	w.nr_vms = 1;
	w.ip = SHAPE_LEAF;
	w.sp = shape_frame_bp(0);
	w.regs[VMSTACK_VM_REG_RBP] = rbp0;
	w.tid = SHAPE_TID;
	w.tls = SHAPE_FS;
	w.ips = ips;
	w.max = 32;
	w.reads_left = VMSTACK_MAX_READS;
	w.deadline = ~0ULL;
	got = vmstack_walk_user(&w);
	same = got == n;
	for (i = 0; same && i < n; i++)
		same = ips[i] == want[i];
	CHECK(same);
	if (!same)
		for (i = 0; i < (got > n ? got : n); i++)
			fprintf(stderr, "  ips[%u] %#18llx  want %#18llx\n", i,
				(unsigned long long)(i < got ? ips[i] : 0),
				(unsigned long long)(i < n ? want[i] : 0));
	free(t);
	free(set);
}

/*
 * The sandwich's Lua functions, innermost first: h and f (the inner
 * loop's), g and the chunk (the outer's); and the pcs the walk shows.
 */
struct lua_frames {
	u64 fn[4], pc[4];
};

/*
 * Walk with frame i's rbp @rbp[i]: in each loop's place its two Lua
 * frames of @s; but the first @native loops (from the inner: 0, 1 or 2)
 * find no state there, and their native frame stays after a BROKEN STATE
 * word (@s is NULL if no Lua frame is shown).
 */
static void walk_lua_frames(const struct vmstack_vm_desc4 *d, const u64 *rbp,
			    const struct lua_frames *s, unsigned int native)
{
	static const u64 loop_ra[2] = { SHAPE_INNER_RA, SHAPE_OUTER_RA };
	unsigned int n = 0, loop, i;
	u64 want[16];

	want[n++] = SHAPE_LEAF;
	for (loop = 0; loop < 2; loop++) {
		if (loop == 1) {	/* the C frames between the loops */
			want[n++] = SHAPE_MID1_RA;
			want[n++] = SHAPE_MID2_RA;
		}
		if (loop < native) {
			want[n++] = shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_STATE);
			want[n++] = loop_ra[loop];
			continue;
		}
		for (i = 2 * loop; i < 2 * loop + 2; i++) {
			want[n++] = shape_word(VMSTACK_VMW_SCRIPT, s->fn[i]);
			want[n++] = s->pc[i];
		}
	}
	want[n++] = SHAPE_MAIN_RA;
	frames(rbp);
	walk_check(d, 0, want, n);
}

/* 5.3: a function value (TValue of @tag naming @gc). */
static u64 tv53(const struct lua53_layout *L, u64 gc, u8 tag)
{
	u64 tv = shape_alloc(16);

	fake_put64(tv, gc);
	fake_put8(tv + L->tv_tag, tag);
	return tv;
}

/* 5.3: a Lua closure's value, of a new Proto (in *@proto). */
static u64 lcl53(const struct lua53_layout *L, u64 *proto)
{
	u64 cl = shape_alloc(40);

	*proto = shape_alloc(120);
	fake_put8(*proto + L->proto.gc_tt, L->tproto);
	fake_put64(cl + L->cl_p, *proto);
	return tv53(L, cl, L->tag_lcl);
}

static u64 ci53(const struct lua53_layout *L, u64 func, u64 previous, u64 pc, u16 status)
{
	u64 ci = shape_alloc(72);

	fake_put64(ci + L->ci_func, func);
	fake_put64(ci + L->ci_previous, previous);
	fake_put64(ci + L->ci_savedpc, pc);
	fake_put16(ci + L->ci_callstatus, status);
	return ci;
}

/*
 * main -> lua_pcallk -> outer loop (the chunk, fresh; g) -> g calls a C
 * closure -> lua_callk -> inner loop (f, fresh; h by OP_CALL) -> h calls
 * os.clock (sampled). rbp: the inner loop's ci_h, the outer's ci_g.
 */
UNIT_TEST(vm4_lua53_builder)
{
	const struct lua53_layout *L = &vmstack_lua536;
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	u64 base_ci, chunk, g, f, h, fn_chunk, fn_g, fn_f, fn_h, ci_chunk, ci_g, ci_ccl, ci_f, ci_h;

	shape_mem();
	base_ci = ci53(L, tv53(L, 0, 0), 0, 0, 0);
	fn_chunk = lcl53(L, &chunk);
	fn_g = lcl53(L, &g);
	fn_f = lcl53(L, &f);
	fn_h = lcl53(L, &h);
	/* callstatus: CIST_LUA (2) on Lua functions' CallInfos. */
	ci_chunk = ci53(L, fn_chunk, base_ci, chunk + 0x500, 2 | L->cist_fresh);
	ci_g = ci53(L, fn_g, ci_chunk, g + 0x510, 2);
	ci_ccl = ci53(L, tv53(L, shape_alloc(40), 0x66 /* a C closure */), ci_g, 0, 0);
	ci_f = ci53(L, fn_f, ci_ccl, f + 0x520, 2 | L->cist_fresh);
	ci_h = ci53(L, fn_h, ci_f, h + 0x530, 2);
	vmstack_lua53_prog(L, &p);
	shape_desc(&d, &p);
	{
		const struct lua_frames s = {
			{ h, f, g, chunk }, { h + 0x530, f + 0x520, g + 0x510, chunk + 0x500 }
		};
		const u64 rbp[NFRAMES] = { 0, ci_h, 0, 0, ci_g, 0 };
		/* rbp no CallInfo (a loop's prologue, a counter): that frame stays native. */
		const u64 no_ci[NFRAMES] = { 0, 0x10, 0, 0, ci_g, 0 };

		walk_lua_frames(&d, rbp, &s, 0);
		walk_lua_frames(&d, no_ci, &s, 1);
	}
	{
		/* A Proto whose type byte is not LUA_TPROTO, below the first: cut there. */
		const u64 rbp[NFRAMES] = { 0, ci_h, 0, 0, ci_g, 0 };
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, h), h + 0x530,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x520,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x510,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};

		frames(rbp);
		fake_put8(chunk + L->proto.gc_tt, 5);
		walk_check(&d, 0, want, sizeof(want) / sizeof(want[0]));
	}
}

/* 5.2: a CallInfo of function value @func (a TValue, or 0: a C function's). */
static u64 ci52(const struct lua52_layout *L, u64 func, u64 previous, u64 pc, u8 status)
{
	u64 ci = shape_alloc(80);

	fake_put64(ci + L->ci_func, func);
	fake_put64(ci + L->ci_previous, previous);
	fake_put64(ci + L->ci_savedpc, pc);
	fake_put8(ci + L->ci_callstatus, status);
	return ci;
}

/* 5.2: a Lua function's value, of a new Proto (in *@proto): as 5.3's. */
static u64 lcl52(const struct lua52_layout *L, u64 *proto)
{
	u64 cl = shape_alloc(40), tv = shape_alloc(16);

	*proto = shape_alloc(120);
	fake_put8(*proto + L->proto.gc_tt, L->tproto);
	fake_put64(cl + L->cl_p, *proto);
	fake_put64(tv, cl);
	fake_put8(tv + L->tv_tag, L->tag_lcl);
	return tv;
}

/* 5.2: a lua_State whose current CallInfo is @ci. */
static u64 state52(const struct lua52_layout *L, u64 ci)
{
	u64 st = shape_alloc(200);

	fake_put8(st + L->l_tt, L->tthread);
	fake_put64(st + L->l_ci, ci);
	return st;
}

/*
 * main -> lua_pcallk -> outer loop (the chunk; g by OP_CALL, REENTRY) ->
 * g calls a C function -> lua_callk -> inner loop (f; h REENTRY, tail
 * called) -> h calls os.clock (sampled). Both loops' rbp: L, its ci
 * os.clock's; or the inner loop a coroutine's, its own L.
 */
UNIT_TEST(vm4_lua52_builder)
{
	const struct lua52_layout *L = &vmstack_lua524;
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	u64 chunk, g, f, h, fn_chunk, fn_g, fn_f, fn_h;
	u64 ci_chunk, ci_g, ci_c, ci_f, ci_h, ci_clock, st, co;
	u8 lua = L->cist_lua, re = L->cist_reentry;

	shape_mem();
	fn_chunk = lcl52(L, &chunk);
	fn_g = lcl52(L, &g);
	fn_f = lcl52(L, &f);
	fn_h = lcl52(L, &h);
	ci_chunk = ci52(L, fn_chunk, ci52(L, 0, 0, 0, 0), chunk + 0x500, lua);
	ci_g = ci52(L, fn_g, ci_chunk, g + 0x510, lua | re);
	ci_c = ci52(L, 0, ci_g, 0, 0);
	ci_f = ci52(L, fn_f, ci_c, f + 0x520, lua);
	ci_h = ci52(L, fn_h, ci_f, h + 0x530, lua | re | L->cist_tail);
	ci_clock = ci52(L, 0, ci_h, 0, 0);
	st = state52(L, ci_clock);
	vmstack_lua52_prog(L, &p);
	shape_desc(&d, &p);
	{
		const struct lua_frames s = {
			{ h, f, g, chunk },
			{ h + 0x530 + VMSTACK_LUA_PC_TAIL, f + 0x520, g + 0x510, chunk + 0x500 }
		};
		const u64 rbp[NFRAMES] = { 0, st, 0, 0, st, 0 };

		walk_lua_frames(&d, rbp, &s, 0);
		/* The inner loop a coroutine's (f, h): the outer L's ci is the resume's. */
		co = state52(L, ci52(L, 0, ci_h, 0, 0));
		fake_put64(ci_f + L->ci_previous, ci52(L, 0, 0, 0, 0));
		fake_put64(st + L->l_ci, ci_c);
		const u64 rbp_co[NFRAMES] = { 0, co, 0, 0, st, 0 };

		walk_lua_frames(&d, rbp_co, &s, 0);
		/* rbp no lua_State (OP_CLOSURE lends it): that frame stays native. */
		const u64 no_state[NFRAMES] = { 0, 0x10, 0, 0, st, 0 };

		walk_lua_frames(&d, no_state, &s, 1);
	}
}

/* 5.1: CallInfo @i of the array at @cis calls @closure (a TValue), saved pc @pc. */
static void ci51(const struct lua51_layout *L, u64 cis, unsigned int i, u64 closure, u64 pc)
{
	u64 tv = shape_alloc(16), ci = cis + i * (u64)L->ci_size;

	fake_put64(tv, closure);
	fake_put32(tv + L->tv_tt, closure ? L->tfunction : 0 /* nil */);
	fake_put64(ci + L->ci_func, tv);
	fake_put64(ci + L->ci_savedpc, pc);
}

/*
 * 5.1: CallInfo @i calls a Lua closure of a new Proto (*@proto) whose
 * instruction 2 is @op, its saved pc past it (*@pc).
 */
static void lua51(const struct lua51_layout *L, u64 cis, unsigned int i, u8 op, u64 *proto,
		  u64 *pc)
{
	u64 cl = shape_alloc(40), code = shape_alloc(64);

	*proto = shape_alloc(120);
	fake_put8(*proto + L->proto.gc_tt, L->tproto);
	fake_put32(code + 8, op | 1u << 6 | 2u << 23);
	*pc = code + 12;
	fake_put64(cl + L->lcl_p, *proto);
	ci51(L, cis, i, cl, *pc);
}

/* 5.1: CallInfo @i calls a C function. */
static void c51(const struct lua51_layout *L, u64 cis, unsigned int i)
{
	u64 cl = shape_alloc(40);

	fake_put8(cl + L->cl_isc, 1);
	ci51(L, cis, i, cl, 0);
}

struct lua51_stack {
	u64 S, chunk, g, f, h, pc_chunk, pc_g, pc_f, pc_h;
};

/*
 * main -> lua_pcall -> outer loop (the chunk; g by OP_CALL) -> g calls a
 * C closure by OP_CALL -> lua_call -> inner loop (f; h by OP_CALL) -> h
 * calls print (C, L->ci, sampled). With @metamethod, g instead indexes a
 * table whose __index is f (OP_GETTABLE: luaV_gettable, luaD_call are the
 * C frames): no C CallInfo between g and f.
 */
static void lua51_stack(const struct lua51_layout *L, struct lua51_stack *s, bool metamethod)
{
	unsigned int i = 0;
	u64 cis;

	shape_mem();
	s->S = shape_alloc(120);
	fake_put8(s->S + L->l_tt, L->tthread);
	cis = shape_alloc(8 * L->ci_size);
	fake_put64(s->S + L->l_base_ci, cis);
	fake_put64(s->S + L->l_end_ci, cis + 7 * L->ci_size);
	ci51(L, cis, i++, 0, 0);
	lua51(L, cis, i++, L->op_call, &s->chunk, &s->pc_chunk);
	lua51(L, cis, i++, metamethod ? 6 /* OP_GETTABLE */ : L->op_call, &s->g, &s->pc_g);
	if (!metamethod)
		c51(L, cis, i++);
	lua51(L, cis, i++, L->op_call, &s->f, &s->pc_f);
	lua51(L, cis, i++, L->op_call, &s->h, &s->pc_h);
	c51(L, cis, i);
	fake_put64(s->S + L->l_ci, cis + i * L->ci_size);
	fake_put64(s->S + L->l_savedpc, 0x1234);	/* print is C: unused */
}

UNIT_TEST(vm4_lua51_builder)
{
	const struct lua51_layout *L = &vmstack_lua515;
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct lua51_state_at at;
	struct lua51_stack s;
	unsigned int pass;

	/* Debian (L in rbp), Redis (L at sp + 0x58), a metamethod (Debian). */
	for (pass = 0; pass < 3; pass++) {
		u64 rbp[NFRAMES] = { 0 };

		lua51_stack(L, &s, pass == 2);
		at.in_rbp = pass != 1;
		at.sp_off = 0x58;
		if (at.in_rbp)
			rbp[1] = rbp[4] = s.S;
		vmstack_lua51_prog(L, &at, &p);
		shape_desc(&d, &p);
		if (!at.in_rbp) {
			fake_put64(shape_frame_bp(1) + 0x58, s.S);
			fake_put64(shape_frame_bp(4) + 0x58, s.S);
		}
		{
			const struct lua_frames fr = {
				{ s.h, s.f, s.g, s.chunk }, { s.pc_h, s.pc_f, s.pc_g, s.pc_chunk }
			};

			walk_lua_frames(&d, rbp, &fr, 0);
		}
	}
	{
		/* Not a lua_State where rbp should hold one: both loops stay native. */
		const u64 rbp[NFRAMES] = { 0, 0x20, 0, 0, 0x20, 0 };

		walk_lua_frames(&d, rbp, NULL, 2);
	}
}
