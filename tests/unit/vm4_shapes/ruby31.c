// SPDX-License-Identifier: GPL-2.0
/*
 * Ruby 3.1: control frames in an array at the end of the execution
 * context's VM stack, growing down: from ec->cfp upward (stride 64) to
 * vm_stack + vm_stack_size * 8. The frame vm_exec was entered with from
 * C has VM_FRAME_FLAG_FINISH in its flags, ep[0] (a second pointer
 * away); C frames (CFUNC methods, the thread's dummy bottom frame) have
 * VM_FRAME_FLAG_CFRAME and are on the native stack already: hidden.
 *
 * Offsets: runtime-layouts.md (branch runtime-facts), from the
 * disassembly of Debian's libruby-3.1.so.3.1.2 (rb_profile_frames,
 * rb_vm_exec): ec vm_stack +0, vm_stack_size +8 (VALUEs), cfp +16;
 * rb_control_frame_t pc +0, iseq +16, ep +32 (64 bytes); ep[0] flags:
 * FINISH 0x20, CFRAME 0x80, magic in 0x7fff0001 (METHOD 0x11110001, BLOCK
 * 0x22220001, CFUNC 0x55550001, EVAL 0x77770001, DUMMY 0x79990001). The
 * execution context is the TLS variable ruby_current_ec, measured at
 * fs_base - 8 in ruby3.1 (libruby the first TLS module).
 *
 * The program is the runtime's own (user/vm/ruby/ruby_prog.c), with the
 * layout of user/vm/ruby/ruby.c; the defines below build the fake frames.
 *
 * The sandwich: main -> ... -> vm_exec_core (outer: <main>, pushed with
 * FINISH; g) -> g calls Array#each (a CFUNC frame): rb_ary_each, and
 * rb_yield's way to rb_vm_exec (C) -> vm_exec_core (inner: the block in
 * g, pushed with FINISH; f) -> f calls Kernel#sleep (CFUNC, sampled).
 * The VM's range is vm_exec_core's (not exported: its FDE gives it).
 */
#include "shape.h"
#include "vm/ruby/ruby.h"

#define EC_VM_STACK	0
#define EC_VM_STACK_SIZE 8
#define EC_CFP		16
#define EC_STACK_START	0x90
#define EC_STACK_MAXSIZE 0xa0
#define CFP_PC		0
#define CFP_ISEQ	16
#define CFP_EP		32
#define CFP_SIZE	64
#define FLAG_FINISH	0x20
#define FLAG_CFRAME	0x80
#define MAGIC_METHOD	0x11110001
#define MAGIC_BLOCK	0x22220001
#define MAGIC_CFUNC	0x55550001
#define MAGIC_EVAL	0x77770001
#define MAGIC_DUMMY	0x79990001
#define TLS_EC		(-8)

/* Control frame @cfp: @flags in its ep[0] (the env in the stack at @ep), @iseq, @pc. */
static void ruby31_cfp(u64 cfp, u64 ep, u64 flags, u64 iseq, u64 pc)
{
	fake_put64(ep, flags);
	fake_put64(cfp + CFP_EP, ep);
	fake_put64(cfp + CFP_ISEQ, iseq);
	fake_put64(cfp + CFP_PC, pc);
}

UNIT_TEST(vm4_shape_ruby31)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 ec, stack, end, iseq[4], cfp[7];
	unsigned int i;

	shape_mem();
	ec = shape_alloc(0x100);
	stack = shape_alloc(0x1000);
	end = stack + 0x1000;
	fake_put64(ec + EC_VM_STACK, stack);
	fake_put64(ec + EC_VM_STACK_SIZE, 0x1000 / 8);
	/* The C stack the sandwich runs on is the context's. */
	fake_put64(ec + EC_STACK_START, SHAPE_STACK + SHAPE_STACK_LEN);
	fake_put64(ec + EC_STACK_MAXSIZE, SHAPE_STACK_LEN);
	for (i = 0; i < 4; i++)
		iseq[i] = shape_alloc(32);	/* <main>, g, block in g, f */
	for (i = 0; i < 7; i++)
		cfp[i] = end - CFP_SIZE * (i + 1);
	/* Outermost first; each env's flags in the value stack, from its bottom. */
	ruby31_cfp(cfp[0], stack + 0x10, MAGIC_DUMMY | FLAG_FINISH | FLAG_CFRAME, 0, 0);
	ruby31_cfp(cfp[1], stack + 0x40, MAGIC_EVAL | FLAG_FINISH, iseq[0], iseq[0] + 0x88);
	ruby31_cfp(cfp[2], stack + 0x80, MAGIC_METHOD, iseq[1], iseq[1] + 0x98);
	ruby31_cfp(cfp[3], stack + 0xc0, MAGIC_CFUNC | FLAG_CFRAME, 0, 0);
	ruby31_cfp(cfp[4], stack + 0x100, MAGIC_BLOCK | FLAG_FINISH, iseq[2], iseq[2] + 0xa8);
	ruby31_cfp(cfp[5], stack + 0x140, MAGIC_METHOD, iseq[3], iseq[3] + 0xb8);
	ruby31_cfp(cfp[6], stack + 0x180, MAGIC_CFUNC | FLAG_CFRAME, 0, 0);
	fake_put64(ec + EC_CFP, cfp[6]);
	fake_put64(SHAPE_FS + TLS_EC, ec);
	CHECK(ruby_layout_of("3.1.2") != NULL);
	if (!ruby_layout_of("3.1.2"))
		return;
	ruby_prog(&p, ruby_layout_of("3.1.2"), TLS_EC);
	shape_desc(&d, &p);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[3]), iseq[3] + 0xb8,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[2]), iseq[2] + 0xa8,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[1]), iseq[1] + 0x98,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[0]), iseq[0] + 0x88,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
		/* The outer activation ended at <main>; the dummy frame is left. */
		CHECK(w.vm_carry[0][0] == cfp[0] && w.vm_carry[0][3] == end);
	}
	{
		/*
		 * Sampled in vm_exec_core running f: r14 is its pc if r15 is
		 * its frame (cfp->pc is stored only before calls).
		 */
		u64 want[] = {
			shape_word(VMSTACK_VMW_SCRIPT, iseq[3]), iseq[3] + 0xc8,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[2]), iseq[2] + 0xa8,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[1]), iseq[1] + 0x98,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[0]), iseq[0] + 0x88,
			SHAPE_MAIN_RA,
		};
		unsigned long regs[__VMSTACK_VM_REG_MAX] = { 0 };

		fake_put64(ec + EC_CFP, cfp[5]);
		regs[VMSTACK_VM_REG_R15] = cfp[5];
		regs[VMSTACK_VM_REG_R14] = iseq[3] + 0xc8;
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
		/* r15 another frame: the pc the frame holds. */
		regs[VMSTACK_VM_REG_R15] = cfp[4];
		want[1] = iseq[3] + 0xb8;
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
		fake_put64(ec + EC_CFP, cfp[6]);
	}
	{
		/* No FINISH where the block was entered: the array's end bounds the walk. */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[3]), iseq[3] + 0xb8,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[2]), iseq[2] + 0xa8,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[1]), iseq[1] + 0x98,
			shape_word(VMSTACK_VMW_SCRIPT, iseq[0]), iseq[0] + 0x88,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			SHAPE_MAIN_RA,
		};

		fake_put64(stack + 0x100, MAGIC_BLOCK);
		fake_put64(stack + 0x40, MAGIC_EVAL);
		fake_put64(stack + 0x10, MAGIC_DUMMY | FLAG_CFRAME);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM && w.vm_carry[0][0] == end);
	}
	{
		/*
		 * A fiber switch caught between the C stack's swap and
		 * ruby_current_ec's: the context's machine stack is another
		 * (a fiber's pool stack above or below this one). Its frames
		 * were never on this stack: the VM part is cut, at each
		 * activation, and the native frames stay.
		 */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};
		const u64 other[][2] = {
			{ SHAPE_STACK - 0x10000, 0x8000 },	/* below */
			{ SHAPE_STACK + 0x10000, 0x8000 },	/* above */
			{ SHAPE_STACK + 0x1000, 0x800 },	/* ends inside: sp above it */
		};

		for (i = 0; i < 3; i++) {
			fake_put64(ec + EC_STACK_START, other[i][0]);
			fake_put64(ec + EC_STACK_MAXSIZE, other[i][1]);
			shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		}
		fake_put64(ec + EC_STACK_START, SHAPE_STACK + SHAPE_STACK_LEN);
		fake_put64(ec + EC_STACK_MAXSIZE, SHAPE_STACK_LEN);
	}
	/* A thread with no execution context: the native frames stay, marked. */
	fake_put64(SHAPE_FS + TLS_EC, 0);
	shape_walk_check_stateless(&d, &w);
	CHECK(w.flags == VMSTACK_SF_VM_BROKEN);
}
