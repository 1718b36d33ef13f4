// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.12 and 3.13: _PyInterpreterFrame chains where C entered the
 * eval loop through a shim frame (owner == FRAME_OWNED_BY_CSTACK, 3),
 * which lives in _PyEval_EvalFrameDefault's C frame, ends one activation
 * and links to the next. 3.13's shim also has f_executable == &_Py_NoneStruct.
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), from the DWARF of
 * pyenv's libpython3.12.so.1.0 (3.12.1) and libpython3.13.so.1.0 (3.13.0,
 * equal to its _Py_DebugOffsets); the TLS slot _Py_tss_tstate at
 * fs_base - 8 was measured live in python3.12 and python3.13 (libpython
 * the first TLS module; the recorder reads l_tls_offset, it does not
 * assume it). The slot is NULL while the thread has released the GIL, so
 * the program falls back to the thread list keyed by native_thread_id.
 *
 * The sandwich: main -> _PyEval_EvalFrameDefault (outer: <module>, g) ->
 * g calls sorted(key=f): builtin_sorted, list_sort (C) ->
 * _PyEval_EvalFrameDefault (inner: f) -> f calls time.sleep (C, sampled).
 * The chain from the thread state: f, shim, g, <module>, shim, NULL.
 */
#include <string.h>

#include "shape.h"

#define OWNER_CSTACK	3	/* enum _frameowner, 3.12 and 3.13 (DWARF) */

struct py_layout {
	int runtime_interp_head;	/* _PyRuntime.interpreters.head */
	int interp_next, interp_threads_head, interp_size;
	int ts_next, ts_native_id, ts_size;
	int ts_cframe, cframe_current;	/* 3.12: tstate->cframe->current_frame */
	int ts_current_frame;		/* 3.13: tstate->current_frame (no cframe: -1 above) */
	int f_code, f_previous, f_pc, f_owner;
	int tls_off;			/* _Py_tss_tstate from the fs base */
	bool shim_none;			/* 3.13: the shim's f_executable is Py_None */
};

/* 3.12.1, DWARF; sizes large enough for the fields used. */
static const struct py_layout py312 = {
	.runtime_interp_head = 40, .interp_next = 0, .interp_threads_head = 72,
	.interp_size = 128, .ts_next = 8, .ts_native_id = 144, .ts_size = 256,
	.ts_cframe = 56, .cframe_current = 0, .ts_current_frame = -1,
	.f_code = 0, .f_previous = 8, .f_pc = 56 /* prev_instr */, .f_owner = 70,
	.tls_off = -8,
};

/* 3.13.0, DWARF and _Py_DebugOffsets (interpreter_state.size 194968: only the head is laid out). */
static const struct py_layout py313 = {
	.runtime_interp_head = 632, .interp_next = 7264, .interp_threads_head = 7344,
	.interp_size = 7352, .ts_next = 8, .ts_native_id = 160, .ts_size = 304,
	.ts_cframe = -1, .ts_current_frame = 72,
	.f_code = 0 /* f_executable */, .f_previous = 8, .f_pc = 56 /* instr_ptr */,
	.f_owner = 70, .tls_off = -8, .shim_none = true,
};

/* Process addresses the recorder resolves from libpython's symbols. */
struct py_syms {
	u64 runtime, code_type, none;
};

/*
 * The program. r8: the frame the next activation starts at; r9: the
 * thread state; r10: 1 once it is found (the outer activations go on
 * from r8).
 */
static void py_prog(struct vm_prog *p, const struct py_layout *l, const struct py_syms *s)
{
	vm_label cont, list, interp, thread, next_interp, have, loop, shim, done, bad, nostate;

	vm_prog_init(p);
	cont = vm_prog_label(p), list = vm_prog_label(p), interp = vm_prog_label(p);
	thread = vm_prog_label(p), next_interp = vm_prog_label(p);
	have = vm_prog_label(p), loop = vm_prog_label(p), shim = vm_prog_label(p);
	done = vm_prog_label(p), bad = vm_prog_label(p), nostate = vm_prog_label(p);
	jk(p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	/* The GIL holder's fast path: its TLS slot. */
	vm_prog_ld(p, 8, 0, 9, 6, l->tls_off, list);
	jk(p, VMSTACK_VM4_JNE_K, 9, 0, have);
	/* Released the GIL: every interpreter's thread list, by native thread id. */
	bind(p, list);
	vm_prog_mov64(p, 7, s->runtime);
	ld(p, 8, 7, 7, l->runtime_interp_head);
	bind(p, interp);
	jk(p, VMSTACK_VM4_JEQ_K, 7, 0, nostate);
	ld(p, 8, 9, 7, l->interp_threads_head);
	bind(p, thread);
	jk(p, VMSTACK_VM4_JEQ_K, 9, 0, next_interp);
	ld(p, 8, 2, 9, l->ts_native_id);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 2, 5, have);
	ld(p, 8, 9, 9, l->ts_next);
	vm_prog_ja(p, thread);
	bind(p, next_interp);
	ld(p, 8, 7, 7, l->interp_next);
	vm_prog_ja(p, interp);
	bind(p, have);
	op(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	if (l->ts_cframe >= 0) {
		ld(p, 8, 8, 9, l->ts_cframe);
		ld(p, 8, 8, 8, l->cframe_current);
	} else {
		ld(p, 8, 8, 9, l->ts_current_frame);
	}
	bind(p, cont);
	bind(p, loop);
	jk(p, VMSTACK_VM4_JEQ_K, 8, 0, done);
	ld(p, 8, 3, 8, l->f_code);
	ld(p, 1, 2, 8, l->f_owner);
	jk(p, VMSTACK_VM4_JEQ_K, 2, OWNER_CSTACK, shim);
	/* A frame of the thread, a generator or a frame object: its code. */
	ld(p, 8, 4, 3, 8 /* ob_type */);
	vm_prog_jmp64(p, VMSTACK_VM4_JNE_K, 4, s->code_type, 7, bad);
	ld(p, 8, 4, 8, l->f_pc);
	op(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	ld(p, 8, 8, 8, l->f_previous);
	vm_prog_ja(p, loop);
	/* The shim: hidden; the activation ends, the next starts at its previous. */
	bind(p, shim);
	if (l->shim_none)
		vm_prog_jmp64(p, VMSTACK_VM4_JNE_K, 3, s->none, 7, bad);
	ld(p, 8, 8, 8, l->f_previous);
	bind(p, done);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, bad);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	bind(p, nostate);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/* What the test sees of the fake process. */
struct py_world {
	u64 tstate, code[3], frame[5];	/* code: module, g, f */
	u64 trampoline;			/* 3.12's shim code object */
};

static u64 py_code(const struct py_syms *s)
{
	u64 c = shape_alloc(208);

	fake_put64(c + 8, s->code_type);
	return c;
}

/* A frame: code, previous, pc, owner. */
static u64 py_frame(const struct py_layout *l, u64 code, u64 prev, u64 pc, u8 owner)
{
	u64 f = shape_alloc(80);

	fake_put64(f + l->f_code, code);
	fake_put64(f + l->f_previous, prev);
	fake_put64(f + l->f_pc, pc);
	fake_put8(f + l->f_owner, owner);
	return f;
}

static void py_world(const struct py_layout *l, struct py_syms *s, struct py_world *x)
{
	u64 interp, other, holder;
	unsigned int i;

	shape_mem();
	s->runtime = shape_alloc(1024);
	s->code_type = shape_alloc(416);
	s->none = shape_alloc(16);
	interp = shape_alloc(l->interp_size);
	other = shape_alloc(l->ts_size);
	x->tstate = shape_alloc(l->ts_size);
	fake_put64(s->runtime + l->runtime_interp_head, interp);
	/* Another thread first on the list, then ours. */
	fake_put64(interp + l->interp_threads_head, other);
	fake_put64(other + l->ts_native_id, SHAPE_TID + 1);
	fake_put64(other + l->ts_next, x->tstate);
	fake_put64(x->tstate + l->ts_native_id, SHAPE_TID);
	for (i = 0; i < 3; i++)
		x->code[i] = py_code(s);
	/* 3.12's shim runs the interpreter's own <interpreter trampoline> code. */
	x->trampoline = l->shim_none ? s->none : py_code(s);
	/* Outermost first: shim1, <module>, g, shim2, f. */
	x->frame[0] = py_frame(l, x->trampoline, 0, 0, OWNER_CSTACK);
	x->frame[1] = py_frame(l, x->code[0], x->frame[0], x->code[0] + 0x200, 0);
	x->frame[2] = py_frame(l, x->code[1], x->frame[1], x->code[1] + 0x210, 0);
	x->frame[3] = py_frame(l, x->trampoline, x->frame[2], 0, OWNER_CSTACK);
	x->frame[4] = py_frame(l, x->code[2], x->frame[3], x->code[2] + 0x220, 0);
	if (l->ts_cframe >= 0) {
		holder = shape_alloc(16);	/* the inner eval's _PyCFrame, on its C stack */
		fake_put64(x->tstate + l->ts_cframe, holder);
		fake_put64(holder + l->cframe_current, x->frame[4]);
	} else {
		fake_put64(x->tstate + l->ts_current_frame, x->frame[4]);
	}
}

/* The merged stack: f in the inner activation, g and <module> in the outer. */
static void py_check(const struct py_world *x, const struct vmstack_vm_desc4 *d,
		     struct vmstack_walk *w)
{
	const u64 want[] = {
		SHAPE_LEAF,
		shape_word(VMSTACK_VMW_SCRIPT, x->code[2]), x->code[2] + 0x220,
		SHAPE_MID1_RA, SHAPE_MID2_RA,
		shape_word(VMSTACK_VMW_SCRIPT, x->code[1]), x->code[1] + 0x210,
		shape_word(VMSTACK_VMW_SCRIPT, x->code[0]), x->code[0] + 0x200,
		SHAPE_MAIN_RA,
	};

	shape_walk_check(d, w, want, sizeof(want) / sizeof(want[0]));
	CHECK(w->flags == VMSTACK_SF_VM);
	/* The outer activation ended at shim1, whose previous is NULL. */
	CHECK(w->vm_carry[0][0] == 0 && w->vm_carry[0][1] == x->tstate &&
	      w->vm_carry[0][2] == 1);
}

/* @prog_len: the program's length, as the report on issue 26 gives it. */
static void py_shape(const struct py_layout *l, unsigned int prog_len)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	struct py_syms s;
	struct py_world x;

	py_world(l, &s, &x);
	py_prog(&p, l, &s);
	shape_desc(&d, &p);

	/* The thread holds the GIL: its TLS slot names its thread state. */
	fake_put64(SHAPE_FS + l->tls_off, x.tstate);
	py_check(&x, &d, &w);

	/* In time.sleep it released the GIL: the slot is NULL, the list finds it. */
	fake_put64(SHAPE_FS + l->tls_off, 0);
	py_check(&x, &d, &w);

	/* Not on any list either: each activation's native frame stays, marked. */
	fake_put64(x.tstate + l->ts_native_id, SHAPE_TID + 2);
	shape_walk_check_stateless(&d, &w);
	CHECK(w.flags == VMSTACK_SF_VM_BROKEN);
	fake_put64(x.tstate + l->ts_native_id, SHAPE_TID);

	/* A frame whose code is not a code object: the VM part is cut there. */
	fake_put64(x.code[1] + 8, s.none);
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
	CHECK(d.prog_len == prog_len);
}

UNIT_TEST(vm4_shape_cpython312)
{
	py_shape(&py312, 32);
}

UNIT_TEST(vm4_shape_cpython313)
{
	py_shape(&py313, 33);
}
