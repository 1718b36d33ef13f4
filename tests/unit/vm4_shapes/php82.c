// SPDX-License-Identifier: GPL-2.0
/*
 * PHP 8.2: zend_execute_data linked by prev_execute_data from
 * executor_globals.current_execute_data. A user frame with ZEND_CALL_TOP
 * in This.u1.type_info was pushed by C: execute_ex returns to C when it
 * leaves it, so it ends the activation. Internal functions' frames are C
 * on the native stack already: hidden, whatever their flags (one called
 * through zend_call_function is TOP too, but execute_ex never ran it).
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), from the
 * disassembly of Debian's /usr/bin/php8.2 (8.2.36-1~deb12u1, NTS) and a
 * live walk of it: executor_globals (a global: NTS) current_execute_data
 * +488; zend_execute_data opline +0, func +24, This.u1.type_info +40,
 * prev_execute_data +48; zend_function type +0 (INTERNAL 1, USER 2, EVAL
 * 4); ZEND_CALL_TOP 0x20000. Call infos as seen live: a function called
 * from C 0x2020000 (TOP | DYNAMIC), -r code 0x130000.
 *
 * The sandwich: main -> zend_execute -> execute_ex (outer: the -r code;
 * g) -> g calls array_map (internal): zend_call_function (C) ->
 * execute_ex (inner: f) -> f calls call_user_func('usleep', 1): both
 * internal, usleep pushed by zend_call_function with TOP (sampled).
 */
#include "shape.h"

#define EG_CURRENT_EXECUTE_DATA	488
#define EX_OPLINE	0
#define EX_FUNC		24
#define EX_CALL_INFO	40
#define EX_PREV		48
#define EX_SIZE		80
#define FN_INTERNAL	1
#define FN_USER		2
#define FN_EVAL		4
#define CALL_TOP	0x20000

/*
 * r8: the next activation's frame; r10: 1 once the first is read. r12:
 * in the sampled frame (r4), until its first user frame is shown: that
 * frame's exact opline is execute_ex's r15 (HYBRID VM: execute_data in
 * r14, opline in r15; ex->opline is written back only at calls), if r14
 * is that frame.
 */
static void php82_prog(struct vm_prog *p, u64 eg)
{
	vm_label cont, loop, user, saved, show, hidden, done, bad;

	vm_prog_init(p);
	cont = vm_prog_label(p), loop = vm_prog_label(p), user = vm_prog_label(p);
	saved = vm_prog_label(p), show = vm_prog_label(p), hidden = vm_prog_label(p);
	done = vm_prog_label(p), bad = vm_prog_label(p);
	op(p, VMSTACK_VM4_MOV, 12, 4, 0);
	jk(p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	vm_prog_mov64(p, 9, eg);
	ld(p, 8, 8, 9, EG_CURRENT_EXECUTE_DATA);
	op(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	bind(p, cont);
	bind(p, loop);
	jk(p, VMSTACK_VM4_JEQ_K, 8, 0, done);
	/* No function (the engine's own walkers skip such frames), or C. */
	ld(p, 8, 3, 8, EX_FUNC);
	jk(p, VMSTACK_VM4_JEQ_K, 3, 0, hidden);
	ld(p, 1, 4, 3, 0);
	jk(p, VMSTACK_VM4_JEQ_K, 4, FN_INTERNAL, hidden);
	jk(p, VMSTACK_VM4_JEQ_K, 4, FN_USER, user);
	jk(p, VMSTACK_VM4_JEQ_K, 4, FN_EVAL, user);
	vm_prog_ja(p, bad);
	bind(p, user);
	jk(p, VMSTACK_VM4_JEQ_K, 12, 0, saved);
	op(p, VMSTACK_VM4_MOV_K, 12, 0, 0);
	vm_prog_ldreg(p, 4, VMSTACK_VM_REG_R14);
	vm_prog_jmp(p, VMSTACK_VM4_JNE, 4, 8, saved);
	vm_prog_ldreg(p, 4, VMSTACK_VM_REG_R15);
	vm_prog_ja(p, show);
	bind(p, saved);
	ld(p, 8, 4, 8, EX_OPLINE);
	bind(p, show);
	op(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	ld(p, 4, 4, 8, EX_CALL_INFO);
	ld(p, 8, 8, 8, EX_PREV);
	jk(p, VMSTACK_VM4_JSET_K, 4, CALL_TOP, done);
	vm_prog_ja(p, loop);
	bind(p, hidden);
	ld(p, 8, 8, 8, EX_PREV);
	vm_prog_ja(p, loop);
	bind(p, done);
	xit(p, VMSTACK_VM4_X_SHOWN);
	bind(p, bad);
	xit(p, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
}

/* A function of @type. */
static u64 php82_fn(u8 type)
{
	u64 fn = shape_alloc(240);

	fake_put8(fn, type);
	return fn;
}

static u64 php82_ex(u64 func, u64 opline, u32 call_info, u64 prev)
{
	u64 ex = shape_alloc(EX_SIZE);

	fake_put64(ex + EX_OPLINE, opline);
	fake_put64(ex + EX_FUNC, func);
	fake_put32(ex + EX_CALL_INFO, call_info);
	fake_put64(ex + EX_PREV, prev);
	return ex;
}

UNIT_TEST(vm4_shape_php82)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 eg, code, g, f, ex_code, ex_g, ex_map, ex_f, ex_cuf, ex_usleep;

	shape_mem();
	eg = shape_alloc(1800);
	code = php82_fn(FN_EVAL);
	g = php82_fn(FN_USER);
	f = php82_fn(FN_USER);
	/* Oplines: 32-byte zend_ops in each op_array's opcodes. */
	ex_code = php82_ex(code, code + 0x1000, 0x130000, 0);
	ex_g = php82_ex(g, g + 0x1040, 0, ex_code);
	ex_map = php82_ex(php82_fn(FN_INTERNAL), 0, 0, ex_g);
	ex_f = php82_ex(f, f + 0x1080, 0x2020000, ex_map);
	ex_cuf = php82_ex(php82_fn(FN_INTERNAL), 0, 0, ex_f);
	ex_usleep = php82_ex(php82_fn(FN_INTERNAL), 0, CALL_TOP, ex_cuf);
	fake_put64(eg + EG_CURRENT_EXECUTE_DATA, ex_usleep);
	php82_prog(&p, eg);
	shape_desc(&d, &p);
	CHECK(d.prog_len == 29);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x1080,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x1040,
			shape_word(VMSTACK_VMW_SCRIPT, code), code + 0x1000,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
		CHECK(w.vm_carry[0][0] == 0);
	}
	{
		/*
		 * The sample in execute_ex running f (usleep and
		 * call_user_func returned): r15 is f's exact opline, its
		 * ex->opline the last one saved.
		 */
		u64 want[] = {
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x10c0,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x1040,
			shape_word(VMSTACK_VMW_SCRIPT, code), code + 0x1000,
			SHAPE_MAIN_RA,
		};
		unsigned long regs[__VMSTACK_VM_REG_MAX] = { 0 };

		regs[VMSTACK_VM_REG_R14] = ex_f;
		regs[VMSTACK_VM_REG_R15] = f + 0x10c0;
		fake_put64(eg + EG_CURRENT_EXECUTE_DATA, ex_f);
		/* The VM frames stand for the sampled loop frame itself. */
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
		/* r14 another frame: the opline saved in the frame. */
		regs[VMSTACK_VM_REG_R14] = ex_g;
		want[1] = f + 0x1080;
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
	}
	{
		/* A frame whose function is of no known type: cut there. */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x1080,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};

		fake_put8(g, 3);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
	}
}
