// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's own program for CPython 3.12, 3.13 and 3.14
 * (user/vm/cpython/shim_prog.c) on the sandwich of cpython_shim.c: main ->
 * _PyEval_EvalFrameDefault (outer: <module>, g) -> sorted's C ->
 * _PyEval_EvalFrameDefault (inner: f) -> a C function (sampled). The
 * chain from the thread state: f, shim, g, <module>, shim, NULL. And the
 * program for 3.9 and 3.10 (frame_object.c), one frame per activation.
 *
 * Layouts: runtime-layouts.md (DWARF of pyenv's 3.12.1 and 3.13.0, the
 * latter equal to its _Py_DebugOffsets); 3.14: the _Py_DebugOffsets of
 * Debian's 3.14.10 (scripts/sid-python). test_cpython_versions.c checks
 * the recorder reads the same from those files. 3.14's frames hold their
 * code as a tagged _PyStackRef (code | 1, deferred; the shim's None | 1).
 */
#include <string.h>

#include "shape.h"
#include "vm/cpython/cpython.h"

static const struct cpython_layout py312 = {
	.major = 3, .minor = 12,
	.rt_interp_main = 48, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 72,
	.ts_next = 8, .ts_interp = 16, .ts_initialized = -1, .ts_cframe = 56,
	.ts_native_tid = 144, .ts_current_frame = -1,
	.cf_current_frame = 0, .cf_previous = 8,
	.fr_code = 0, .fr_previous = 8, .fr_prev_instr = 56, .fr_is_entry = -1, .fr_owner = 70,
	.owner_cstack = 3, .ob_type = 8,
	.co_firstlineno = 68, .co_filename = 112, .co_qualname = 128, .co_linetable = 136,
	.co_code = 192,
	.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
	.bytes_size = 16, .bytes_data = 32,
};

static const struct cpython_layout py313 = {
	.major = 3, .minor = 13,
	.rt_interp_main = 640, .rt_interp_head = 632, .is_next = 7264, .is_threads_head = 7344,
	.ts_next = 8, .ts_interp = 16, .ts_initialized = -1, .ts_cframe = -1,
	.cf_current_frame = -1, .cf_previous = -1,
	.ts_native_tid = 160, .ts_current_frame = 72,
	.fr_code = 0, .fr_previous = 8, .fr_prev_instr = 56, .fr_is_entry = -1, .fr_owner = 70,
	.owner_cstack = 3, .shim_none = true, .ob_type = 8,
	.co_firstlineno = 68, .co_filename = 112, .co_qualname = 128, .co_linetable = 136,
	.co_code = 200,
	.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
	.bytes_size = 16, .bytes_data = 32,
};

static const struct cpython_layout py314 = {
	.major = 3, .minor = 14,
	.rt_interp_main = -1, .rt_interp_head = 808, .is_next = 7272, .is_threads_head = 7344,
	.ts_next = 8, .ts_interp = 16, .ts_initialized = -1, .ts_cframe = -1,
	.cf_current_frame = -1, .cf_previous = -1,
	.ts_native_tid = 160, .ts_current_frame = 72,
	.fr_code = 0, .fr_previous = 8, .fr_prev_instr = 56, .fr_is_entry = -1, .fr_owner = 74,
	.owner_cstack = 3, .shim_none = true, .exec_tag_bits = 3, .ob_type = 8,
	.co_firstlineno = 68, .co_filename = 112, .co_qualname = 128, .co_linetable = 136,
	.co_code = 208,
	.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
	.bytes_size = 16, .bytes_data = 32,
};

struct world {
	struct cpython_shim_addrs a;
	u64 interp[2], tstate, other, cframe, code[3], frame[5];	/* code: <module>, g, f */
};

/* A frame at @f (0: on the heap): code, previous, pc, owner. */
static u64 frame(const struct cpython_layout *L, u64 f, u64 code, u64 prev, u64 pc, u8 owner)
{
	if (!f)
		f = shape_alloc(80);
	fake_put64(f + L->fr_code, code | (L->exec_tag_bits ? 1 : 0));
	fake_put64(f + L->fr_previous, prev);
	fake_put64(f + L->fr_prev_instr, pc);
	fake_put8(f + L->fr_owner, owner);
	return f;
}

/*
 * Two interpreters: a subinterpreter first on the list (.head) with a
 * thread of another id, then the main one holding another thread and ours.
 * With @shim_sp >= 0 the shims are where the eval function keeps them,
 * at its native frame's sp + @shim_sp (or with @shim_bp, at its bp +
 * @shim_bp); else on the heap.
 */
static void world(const struct cpython_layout *L, struct world *x, int32_t shim_sp,
		  int32_t shim_bp)
{
	/* The eval frames' sp: the frame below's rbp + 16 (saved rbp, return address). */
	u64 inner_shim = shim_sp >= 0 ? shape_frame_bp(0) + 16 + (u64)shim_sp :
			 shim_bp ? shape_frame_bp(1) + (u64)(int64_t)shim_bp : 0;
	u64 outer_shim = shim_sp >= 0 ? shape_frame_bp(3) + 16 + (u64)shim_sp :
			 shim_bp ? shape_frame_bp(4) + (u64)(int64_t)shim_bp : 0;

	u64 trampoline, top;
	unsigned int i;

	shape_mem();
	memset(x, 0, sizeof(*x));
	x->a.code_start = SHAPE_VM_LO;
	x->a.code_end = SHAPE_VM_HI;
	x->a.shim_sp = shim_sp;
	x->a.shim_bp = shim_bp;
	x->a.shim_bp_from = shim_bp ? 8 : 0;	/* endbr64; push %rbp; mov %rsp,%rbp */
	x->a.runtime = shape_alloc(1024);
	x->a.code_type = shape_alloc(416);
	x->a.none = shape_alloc(16);
	for (i = 0; i < 2; i++)
		x->interp[i] = shape_alloc(L->is_threads_head + 64);
	x->other = shape_alloc(320);
	x->tstate = shape_alloc(320);
	fake_put64(x->a.runtime + L->rt_interp_head, x->interp[0]);
	fake_put64(x->interp[0] + L->is_next, x->interp[1]);
	fake_put64(x->interp[0] + L->is_threads_head, shape_alloc(320));
	fake_put64(x->interp[1] + L->is_threads_head, x->other);
	fake_put64(x->other + L->ts_native_tid, SHAPE_TID + 1);
	fake_put64(x->other + L->ts_next, x->tstate);
	fake_put64(x->tstate + L->ts_native_tid, SHAPE_TID);
	for (i = 0; i < 3; i++) {
		x->code[i] = shape_alloc(208);
		fake_put64(x->code[i] + L->ob_type, x->a.code_type);
	}
	/* 3.12's shim runs the interpreter's own trampoline code object. */
	trampoline = L->shim_none ? x->a.none : shape_alloc(208);
	if (!L->shim_none)
		fake_put64(trampoline + L->ob_type, x->a.code_type);
	x->frame[0] = frame(L, outer_shim, trampoline, 0, 0, 3);
	x->frame[1] = frame(L, 0, x->code[0], x->frame[0], x->code[0] + 0x200, 0);
	x->frame[2] = frame(L, 0, x->code[1], x->frame[1], x->code[1] + 0x210, 1 /* a generator */);
	x->frame[3] = frame(L, inner_shim, trampoline, x->frame[2], 0, 3);
	x->frame[4] = frame(L, 0, x->code[2], x->frame[3], x->code[2] + 0x220, 0);
	top = x->frame[4];
	if (L->ts_cframe >= 0) {
		x->cframe = shape_alloc(16);	/* the inner eval's _PyCFrame */
		fake_put64(x->tstate + L->ts_cframe, x->cframe);
		fake_put64(x->cframe + L->cf_current_frame, top);
	} else {
		fake_put64(x->tstate + L->ts_current_frame, top);
	}
}

static void prog_on_shape(const struct cpython_layout *L, int32_t shim_sp, int32_t shim_bp)
{
	static struct vmstack_vm_desc4 d;
	struct vmstack_walk w;
	struct world x;
	const char *err;

	world(L, &x, shim_sp, shim_bp);
	err = cpython_shim_prog(L, &x.a, &d);
	CHECK(err == NULL);
	CHECK(vmstack_vm_desc4_check(&d) == NULL);
	CHECK(d.ranges[0].start == SHAPE_VM_LO && d.ranges[0].end == SHAPE_VM_HI);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[2]), x.code[2] + 0x220,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[1]), x.code[1] + 0x210,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[0]), x.code[0] + 0x200,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}

	/* Just entered: the shim on top, no frame of its own: the native frame stays. */
	if (L->ts_cframe >= 0)
		fake_put64(x.cframe + L->cf_current_frame, x.frame[3]);
	else
		fake_put64(x.tstate + L->ts_current_frame, x.frame[3]);
	{
		const u64 want[] = {
			SHAPE_LEAF, SHAPE_INNER_RA, SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[1]), x.code[1] + 0x210,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[0]), x.code[0] + 0x200,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
	}
	/*
	 * The inner eval before it pushes its shim (or after it pops it): the
	 * chain starts at g. Proved, the inner activation meets the outer's
	 * shim and shows nothing; unproved, it shows g and <module>.
	 */
	if (L->ts_cframe >= 0)
		fake_put64(x.cframe + L->cf_current_frame, x.frame[2]);
	else
		fake_put64(x.tstate + L->ts_current_frame, x.frame[2]);
	if (shim_sp >= 0 || shim_bp) {
		const u64 want[] = {
			SHAPE_LEAF, SHAPE_INNER_RA, SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[1]), x.code[1] + 0x210,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[0]), x.code[0] + 0x200,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	} else {
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[1]), x.code[1] + 0x210,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[0]), x.code[0] + 0x200,
			SHAPE_MID1_RA, SHAPE_MID2_RA, SHAPE_OUTER_RA, SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
	}
	if (L->ts_cframe >= 0)
		fake_put64(x.cframe + L->cf_current_frame, x.frame[4]);
	else
		fake_put64(x.tstate + L->ts_current_frame, x.frame[4]);

	/* The thread on no list: each activation's native frame stays, marked. */
	fake_put64(x.tstate + L->ts_native_tid, SHAPE_TID + 2);
	shape_walk_check_stateless(&d, &w);
	CHECK(w.flags == VMSTACK_SF_VM_BROKEN);
	/* A list that loops: the search ends (THREADS_MAX), the same way. */
	fake_put64(x.tstate + L->ts_next, x.other);
	shape_walk_check_stateless(&d, &w);
	fake_put64(x.tstate + L->ts_next, 0);
	fake_put64(x.tstate + L->ts_native_tid, SHAPE_TID);

	/* A frame whose code is not a code object: the VM part is cut there. */
	fake_put64(x.code[1] + L->ob_type, x.a.none);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[2]), x.code[2] + 0x220,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
	}
	fake_put64(x.code[1] + L->ob_type, x.a.code_type);

	/*
	 * 3.13: a CSTACK frame that does not run Py_None is no shim of 3.13's:
	 * both activations are cut there.
	 */
	if (L->shim_none) {
		fake_put64(x.frame[3] + L->fr_code, x.code[0]);
		{
			const u64 want[] = {
				SHAPE_LEAF,
				shape_word(VMSTACK_VMW_SCRIPT, x.code[2]), x.code[2] + 0x220,
				shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
				SHAPE_MID1_RA, SHAPE_MID2_RA,
				shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
				SHAPE_MAIN_RA,
			};

			shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		}
	}
}

/*
 * 3.9 and 3.10 (DWARF of pyenv's 3.9.18 and 3.10.13, runtime-layouts.md):
 * one frame per activation, <module> in the outer one, f in the inner;
 * threads keyed by thread_id, the fs base. They differ in f_lasti's place
 * (and unit: 3.9 bytes, 3.10 code units, the program passes both on as
 * f_lasti + 1) and in what their line table is (3.9 co_lnotab).
 */
static const struct cpython_layout py39 = {
	.major = 3, .minor = 9,
	.rt_interp_main = 40, .rt_interp_head = 32, .is_next = 0, .is_threads_head = 8,
	.ts_next = 8, .ts_interp = 16, .ts_frame = 24, .ts_thread_id = 176,
	.ts_native_tid = -1, .ts_initialized = -1, .ts_cframe = -1, .ts_current_frame = -1,
	.cf_current_frame = -1, .cf_previous = -1,
	.fr_code = 32, .fr_previous = 24, .fr_lasti = 104, .fr_prev_instr = -1,
	.fr_is_entry = -1, .fr_owner = -1, .owner_cstack = -1, .ob_type = 8,
	.co_firstlineno = 40, .co_filename = 104, .co_name = 112, .co_qualname = -1,
	.co_linetable = 120, .co_code = -1,
	.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
	.bytes_size = 16, .bytes_data = 32,
};

static const struct cpython_layout py310 = {
	.major = 3, .minor = 10,
	.rt_interp_main = 40, .rt_interp_head = 32, .is_next = 0, .is_threads_head = 8,
	.ts_next = 8, .ts_interp = 16, .ts_frame = 24, .ts_thread_id = 176,
	.ts_native_tid = -1, .ts_initialized = -1, .ts_cframe = -1, .ts_current_frame = -1,
	.cf_current_frame = -1, .cf_previous = -1,
	.fr_code = 32, .fr_previous = 24, .fr_lasti = 96, .fr_prev_instr = -1,
	.fr_is_entry = -1, .fr_owner = -1, .owner_cstack = -1, .ob_type = 8,
	.co_firstlineno = 40, .co_filename = 104, .co_name = 112, .co_qualname = -1,
	.co_linetable = 120, .co_code = -1,
	.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
	.bytes_size = 16, .bytes_data = 32,
};

/* <module> at f_lasti @lasti, f not started yet. */
static void frame_object_prog(const struct cpython_layout *L, int32_t lasti)
{
	static struct vmstack_vm_desc4 d;
	struct cpython_shim_addrs a = { SHAPE_VM_LO, SHAPE_VM_HI, 0, 0, 0, -1, 0, 0 };
	struct vmstack_walk w;
	u64 interp, other, ts, code[2], fr[2];
	unsigned int i;

	shape_mem();
	a.runtime = shape_alloc(1024);
	a.code_type = shape_alloc(416);
	interp = shape_alloc(64);
	other = shape_alloc(256);
	ts = shape_alloc(256);
	fake_put64(a.runtime + L->rt_interp_head, interp);
	fake_put64(interp + L->is_threads_head, other);
	fake_put64(other + L->ts_thread_id, SHAPE_FS + 0x100000);
	fake_put64(other + L->ts_next, ts);
	fake_put64(ts + L->ts_thread_id, SHAPE_FS);
	for (i = 0; i < 2; i++) {
		code[i] = shape_alloc(176);
		fake_put64(code[i] + L->ob_type, a.code_type);
		fr[i] = shape_alloc(128);
		fake_put64(fr[i] + L->fr_code, code[i]);
	}
	fake_put32(fr[0] + L->fr_lasti, (uint32_t)lasti);
	fake_put32(fr[1] + L->fr_lasti, 0xffffffff);
	fake_put64(fr[1] + L->fr_previous, fr[0]);
	fake_put64(ts + L->ts_frame, fr[1]);
	CHECK(cpython_frame_object_prog(L, &a, &d) == NULL);
	CHECK(vmstack_vm_desc4_check(&d) == NULL);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, code[1]), 0,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, code[0]), (u64)lasti + 1,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}
	/* In the outer eval's prologue, say: more activations than frames. */
	fake_put64(ts + L->ts_frame, fr[0]);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, code[0]), (u64)lasti + 1,
			SHAPE_MID1_RA, SHAPE_MID2_RA, SHAPE_OUTER_RA, SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
	}
	/* Not on the list: marked, the native frames stay. */
	fake_put64(ts + L->ts_thread_id, 1);
	shape_walk_check_stateless(&d, &w);
}

/* 3.10's f_lasti in code units, 3.9's in bytes: the same instruction. */
UNIT_TEST(vm4_cpython310_prog)
{
	frame_object_prog(&py310, 7);
}

UNIT_TEST(vm4_cpython39_prog)
{
	frame_object_prog(&py39, 14);
}

/* 0x30: the shim's place in the fake eval frames; -1: a build whose code does not show it. */
UNIT_TEST(vm4_cpython312_prog)
{
	prog_on_shape(&py312, 0x30, 0);
	prog_on_shape(&py312, -1, 0);
}

UNIT_TEST(vm4_cpython313_prog)
{
	prog_on_shape(&py313, 0x30, 0);
	prog_on_shape(&py313, -1, 0);
}

/* Equal words: @n of @got against @want's @m; printed when they differ. */
static bool same_words(const u64 *got, unsigned int n, const u64 *want, unsigned int m)
{
	unsigned int i;

	if (n == m && !memcmp(got, want, n * sizeof(*got)))
		return true;
	for (i = 0; i < n; i++)
		fprintf(stderr, "    got[%u] %#llx\n", i, (unsigned long long)got[i]);
	return false;
}

/*
 * The bp form where bp is not the eval frame's own: sampled in its
 * prologue (before "mov %rsp,%rbp") or at its ret (after "leave"), bp is
 * the caller's, here the outer eval's (C between that keeps rbp), and the
 * chain's first shim the outer's (the inner not pushed yet, or popped):
 * nothing is proved, the inner activation shows nothing, and the outer
 * one shows g and <module> from its own place. Sampled inside the body
 * with its own bp, the inner activation shows f.
 */
static void bp_windows(const struct cpython_layout *L)
{
	static struct vmstack_vm_desc4 d;
	struct vmstack_walk w;
	struct world x;
	u64 ips[32];
	unsigned int n, i;
	static const u64 at[2] = { SHAPE_VM_LO + 4, SHAPE_VM_LO + 0x800 };

	world(L, &x, -1, -0x90);
	CHECK(cpython_shim_prog(L, &x.a, &d) == NULL);
	fake_mem_map(SHAPE_VM_LO + 0x7f0, 0x20);
	fake_put8(SHAPE_VM_LO + 0x800, 0xc3);	/* ret */
	fake_put8(SHAPE_VM_LO + 0x808, 0x90);	/* nop */
	/* Inside the body, its own bp: f, then the outer's frames. */
	n = shape_walk_at(&d, &w, SHAPE_VM_LO + 0x808, 1, NULL, ips, 32);
	{
		const u64 want[] = {
			shape_word(VMSTACK_VMW_SCRIPT, x.code[2]), x.code[2] + 0x220,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[1]), x.code[1] + 0x210,
			shape_word(VMSTACK_VMW_SCRIPT, x.code[0]), x.code[0] + 0x200,
			SHAPE_MAIN_RA,
		};

		CHECK(same_words(ips, n, want, sizeof(want) / sizeof(want[0])));
	}
	fake_put64(x.tstate + L->ts_current_frame, x.frame[2]);
	/* The inner eval's bp is the outer's: its saved rbp and return address are main's. */
	shape_bp_at[1] = shape_frame_bp(4);
	for (i = 0; i < 2; i++) {
		const u64 want[] = { at[i], SHAPE_MAIN_RA };

		n = shape_walk_at(&d, &w, at[i], 1, NULL, ips, 32);
		CHECK(same_words(ips, n, want, sizeof(want) / sizeof(want[0])));
	}
	shape_bp_at[1] = 0;
}

/* -0x90: the shim below the eval frame's bp, as Debian's 3.14.10 keeps it. */
UNIT_TEST(vm4_cpython314_prog)
{
	bp_windows(&py314);
	prog_on_shape(&py314, -1, -0x90);
	prog_on_shape(&py314, 0x30, 0);
	prog_on_shape(&py314, -1, 0);
}
