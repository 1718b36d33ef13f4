// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.10: every Python call recurses in C, so each native
 * _PyEval_EvalFrameDefault activation runs exactly one PyFrameObject,
 * in the order of tstate->frame's f_back chain. Each run shows one frame
 * and leaves its f_back in r8 for the next activation out.
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), from the DWARF of
 * pyenv's libpython3.10.so.1.0 (3.10.13): _PyRuntime.gilstate.tstate_current
 * +568 (the GIL holder, NULL when none), interpreters.head +32,
 * interp->next +0, interp->tstate_head +8, tstate->next +8,
 * tstate->thread_id +176 (pthread_self(), which glibc makes the fs base:
 * 3.10 keeps no native thread id), tstate->frame +24; PyFrameObject f_back
 * +24, f_code +32, f_lasti +96 (int, in 2-byte code units).
 *
 * The sandwich: main -> _PyEval_EvalFrameDefault (outer: <module>) ->
 * <module> calls sorted(key=f): builtin_sorted, list_sort (C) ->
 * _PyEval_EvalFrameDefault (inner: f) -> f calls time.sleep (C, sampled).
 */
#include "shape.h"

#define RT_TSTATE_CURRENT	568
#define RT_INTERP_HEAD		32
#define INTERP_NEXT		0
#define INTERP_TSTATE_HEAD	8
#define TS_NEXT			8
#define TS_THREAD_ID		176
#define TS_FRAME		24
#define F_BACK			24
#define F_CODE			32
#define F_LASTI			96

/*
 * The program. r8: the next activation's frame; r9: the thread state;
 * r10: 1 once it is found.
 */
static void py310_prog(struct vm_prog *p, u64 runtime, u64 code_type)
{
	vm_label cont, list, interp, thread, next_interp, have, bad, nostate, empty;

	vm_prog_init(p);
	cont = vm_prog_label(p), list = vm_prog_label(p), interp = vm_prog_label(p);
	thread = vm_prog_label(p), next_interp = vm_prog_label(p), have = vm_prog_label(p);
	bad = vm_prog_label(p), nostate = vm_prog_label(p), empty = vm_prog_label(p);
	jk(p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	/* The GIL holder, if that is this thread (its thread_id is our fs base). */
	vm_prog_mov64(p, 7, runtime);
	ld(p, 8, 9, 7, RT_TSTATE_CURRENT);
	jk(p, VMSTACK_VM4_JEQ_K, 9, 0, list);
	ld(p, 8, 2, 9, TS_THREAD_ID);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 2, 6, have);
	/* Else the thread lists, keyed by thread_id == fs base. */
	bind(p, list);
	ld(p, 8, 7, 7, RT_INTERP_HEAD);
	bind(p, interp);
	jk(p, VMSTACK_VM4_JEQ_K, 7, 0, nostate);
	ld(p, 8, 9, 7, INTERP_TSTATE_HEAD);
	bind(p, thread);
	jk(p, VMSTACK_VM4_JEQ_K, 9, 0, next_interp);
	ld(p, 8, 2, 9, TS_THREAD_ID);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 2, 6, have);
	ld(p, 8, 9, 9, TS_NEXT);
	vm_prog_ja(p, thread);
	bind(p, next_interp);
	ld(p, 8, 7, 7, INTERP_NEXT);
	vm_prog_ja(p, interp);
	bind(p, have);
	op(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	ld(p, 8, 8, 9, TS_FRAME);
	/* One frame per activation. */
	bind(p, cont);
	jk(p, VMSTACK_VM4_JEQ_K, 8, 0, empty);
	ld(p, 8, 3, 8, F_CODE);
	ld(p, 8, 4, 3, 8 /* ob_type */);
	vm_prog_jmp64(p, VMSTACK_VM4_JNE_K, 4, code_type, 7, bad);
	ld(p, 4, 4, 8, F_LASTI);
	op(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	ld(p, 8, 8, 8, F_BACK);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, empty);
	xit(p, VMSTACK_VM4_X_EMPTY);
	bind(p, bad);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	bind(p, nostate);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

UNIT_TEST(vm4_shape_cpython310)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 runtime, code_type, interp, other, ts, module, f, fr_module, fr_f;
	const u64 *want;
	unsigned int n;

	shape_mem();
	runtime = shape_alloc(1024);
	code_type = shape_alloc(416);
	interp = shape_alloc(64);
	other = shape_alloc(256);
	ts = shape_alloc(256);
	module = shape_alloc(176);
	f = shape_alloc(176);
	fake_put64(module + 8, code_type);
	fake_put64(f + 8, code_type);
	fr_module = shape_alloc(112);
	fr_f = shape_alloc(112);
	fake_put64(fr_module + F_CODE, module);
	fake_put32(fr_module + F_LASTI, 21);
	fake_put64(fr_f + F_CODE, f);
	fake_put64(fr_f + F_BACK, fr_module);
	fake_put32(fr_f + F_LASTI, 7);
	fake_put64(runtime + RT_INTERP_HEAD, interp);
	fake_put64(interp + INTERP_TSTATE_HEAD, other);
	fake_put64(other + TS_NEXT, ts);
	fake_put64(other + TS_THREAD_ID, SHAPE_FS + 0x800000);
	fake_put64(ts + TS_THREAD_ID, SHAPE_FS);
	fake_put64(ts + TS_FRAME, fr_f);
	py310_prog(&p, runtime, code_type);
	shape_desc(&d, &p);
	CHECK(d.prog_len == 30);

	{
		const u64 shown[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), 7,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, module), 21,
			SHAPE_MAIN_RA,
		};

		want = shown;
		n = sizeof(shown) / sizeof(shown[0]);
		/* This thread holds the GIL. */
		fake_put64(runtime + RT_TSTATE_CURRENT, ts);
		shape_walk_check(&d, &w, want, n);
		CHECK(w.flags == VMSTACK_SF_VM);
		CHECK(w.vm_carry[0][0] == 0 && w.vm_carry[0][1] == ts);
		/* Another thread holds it (time.sleep released it): the list. */
		fake_put64(runtime + RT_TSTATE_CURRENT, other);
		shape_walk_check(&d, &w, want, n);
		CHECK(w.flags == VMSTACK_SF_VM);
		/* Nobody holds it. */
		fake_put64(runtime + RT_TSTATE_CURRENT, 0);
		shape_walk_check(&d, &w, want, n);
		CHECK(w.flags == VMSTACK_SF_VM);
	}
	{
		/*
		 * The sample fell in the few instructions where the eval loop
		 * has returned but not yet restored tstate->frame: the outer
		 * activation has no frame left; its native frame stays.
		 */
		const u64 short_chain[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), 7,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			SHAPE_OUTER_RA,
			SHAPE_MAIN_RA,
		};

		fake_put64(fr_f + F_BACK, 0);
		shape_walk_check(&d, &w, short_chain, sizeof(short_chain) / sizeof(short_chain[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}
}
