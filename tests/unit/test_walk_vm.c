// SPDX-License-Identifier: GPL-2.0
/*
 * The walker on fake stacks with VM frames: a toy VM whose frames link by
 * pointers (loops, activations without VM frames, steps that barely
 * move), CPython 3.11's shape, and the descriptor checks they rely on.
 */
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "unit.h"
#include "walk_setup.h"

/* A script function with identity @ident at @fn. */
static void toy_fn(unsigned long fn, unsigned long ident)
{
	fake_put8(fn, 1);
	fake_put64(fn + 8, ident);
}

static void toy_frame(unsigned long f, unsigned long prev, u16 flags,
		      unsigned long fn)
{
	fake_put64(f, prev);
	fake_put16(f + 8, flags);
	fake_put64(f + 16, fn);
}

/* Frames @f1 and @f2 that call each other, the state's top @f1. */
static void toy_cycle(unsigned long state, unsigned long f1, unsigned long f2)
{
	toy_fn(HEAP + 0x800, 0xa1);
	toy_frame(f1, f2, 0, HEAP + 0x800);
	toy_frame(f2, f1, 0, HEAP + 0x800);
	fake_put8(state, 0x55);
	fake_put64(state + 8, f1);
}

static void toy_ar(unsigned long ar, unsigned long state, s32 nres,
		   unsigned long ra)
{
	fake_put64(ar, state);
	fake_put32(ar + 8, (u32)nres);
	fake_put64(ar + 16, 0);
	fake_put64(ar + 24, ra);
}

UNIT_TEST(walk_vm_frames)
{
	struct vmstack_vm_desc d = toy_desc();
	const unsigned long state = HEAP, f1 = HEAP + 0x100, f2 = HEAP + 0x140;
	struct vmstack_walk w;

	CHECK(vmstack_desc3_check(&d) == NULL);
	mem_setup();
	toy_fn(HEAP + 0x800, 0xa1);
	toy_fn(HEAP + 0x840, 0xa2);
	toy_frame(f1, f2, 0, HEAP + 0x800);	/* inner, called from f2 */
	toy_frame(f2, 0, 1, HEAP + 0x840);	/* entered from C */
	fake_put8(state, 0x55);
	fake_put64(state + 8, f1);
	toy_ar(STACK + 0x100, state, 0, MAIN_RA);
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	/* rdx (top_reg) holds nothing useful: the state's top is taken. */
	CHECK(vmstack_walk_user(&w) == 5);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xa1) && ips[1] == 0);
	CHECK(ips[2] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xa2) && ips[3] == 0);
	CHECK(ips[4] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);
}

/* Frames that point to each other: cut at max_frames, with a marker. */
UNIT_TEST(walk_vm_cycle)
{
	struct vmstack_vm_desc d = toy_desc();
	const unsigned long state = HEAP, f1 = HEAP + 0x100, f2 = HEAP + 0x140;
	struct vmstack_walk w;
	unsigned int n;

	mem_setup();
	toy_cycle(state, f1, f2);
	toy_ar(STACK + 0x100, state, 0, MAIN_RA);
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	d.max_frames = 5;
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	n = vmstack_walk_user(&w);
	CHECK(n == 2 * 5 + 2);
	CHECK(ips[8] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xa1));
	CHECK(ips[10] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 4));	/* VMB_DEPTH */
	CHECK(ips[11] == MAIN_RA);
	CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
}

/*
 * The sampled frame is the interpreter's, but its activation has no VM
 * frames (LuaJIT's lj_vm_cpcall with no Lua function): it is dropped, and
 * its caller, another activation of the same VM, is an outer frame, not
 * the sampled one: the sampled registers (rdx here, the top frame in the
 * sampled frame) say nothing about it. rdx points at frames of another
 * function ("decoy", 0xdd); the outer activation's own are "real" (0xa1).
 */
UNIT_TEST(walk_vm_empty_activation_at_leaf)
{
	struct vmstack_vm_desc d = toy_desc();
	const unsigned long state = HEAP, real = HEAP + 0x100, decoy = HEAP + 0x200;
	const unsigned long ar1 = STACK + 0x100, ar2 = ar1 + 32;
	struct vmstack_walk w;

	mem_setup();
	toy_fn(HEAP + 0x800, 0xa1);
	toy_fn(HEAP + 0x840, 0xdd);
	toy_frame(real, 0, 1, HEAP + 0x800);
	toy_frame(decoy, 0, 1, HEAP + 0x840);
	fake_put8(state, 0x55);
	fake_put64(state + 8, real);
	toy_ar(ar1, state, -1, VM_LO + 0x20);	/* empty; called from the VM */
	toy_ar(ar2, state, 0, MAIN_RA);
	w = walk_from(VM_LO + 0x10, ar1, 0);
	w.regs[VMSTACK_VM_REG_RDX] = decoy;
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	CHECK(vmstack_walk_user(&w) == 3);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xa1));
	CHECK(ips[2] == MAIN_RA);
}

/*
 * F_VM_STATE: the VM's state is shown once a sample, above the first
 * activation whose walk starts, also when that walk is cut: the outer
 * activation (cut too: the same looping frames) shows it not again,
 * which would put a [GC] below the inner activation's frames.
 */
UNIT_TEST(walk_vm_state_once_when_cut)
{
	struct vmstack_vm_desc d = toy_desc();
	const unsigned long state = HEAP, f1 = HEAP + 0x100, f2 = HEAP + 0x140, g = HEAP + 0x400;
	const unsigned long ar1 = STACK + 0x100, ar2 = ar1 + 32;
	const u64 gc = vmstack_vmw(VMSTACK_VMW_BUILTIN, 0,
				   VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_GC);
	struct vmstack_walk w;
	unsigned int n, i, ngc = 0, ncut = 0;

	d.flags |= VMSTACK_VM_F_VM_STATE;
	d.vms_g_off = 0x10;
	d.vms_off = 0x20;
	d.vms_gc = 7;
	d.vms_jit_lo = 100;
	d.vms_jit_hi = 101;
	d.max_frames = 3;
	CHECK(vmstack_desc3_check(&d) == NULL);
	mem_setup();
	toy_cycle(state, f1, f2);
	fake_put64(state + 0x10, g);
	fake_put32(g + 0x20, 7);
	toy_ar(ar1, state, 0, VM_LO + 0x20);	/* called from the VM */
	toy_ar(ar2, state, 0, MAIN_RA);
	w = walk_from(VM_LO + 0x10, ar1, 0);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	n = vmstack_walk_user(&w);
	for (i = 0; i < n; i++) {
		ngc += ips[i] == gc;
		ncut += ips[i] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 4);	/* VMB_DEPTH */
	}
	CHECK(ncut == 2 && ngc == 1 && ips[0] == gc);
	CHECK(n && ips[n - 1] == MAIN_RA);
}

/*
 * Steps that barely move: a rule whose CFA is rsp + 8 from an odd rsp
 * would rise by one byte; a VM entry that says its caller's sp is 1 byte
 * up. Every step must rise by an aligned word, VM caller steps included.
 */
UNIT_TEST(walk_steps_rise_by_a_word)
{
	struct vmstack_vm_desc d = toy_desc();
	const unsigned long state = HEAP, f1 = HEAP + 0x100;
	struct vmstack_walk w;

	mem_setup();
	/* A frame pointer 4 bytes above an odd sp: not a frame. */
	fp_frame(STACK + 0x108, 0, 0x500010);
	w = walk_from(0x500000, STACK + 0x103, STACK + 0x108);
	CHECK(vmstack_walk_user(&w) == 2);	/* rbp - sp = 5: a frame, aligned */
	w = walk_from(0x500000, STACK + 0x107, STACK + 0x104);
	CHECK(vmstack_walk_user(&w) == 1 && w.flags == VMSTACK_SF_USER_BROKEN);
	/* The VM's caller one byte above the activation record. */
	toy_fn(HEAP + 0x800, 0xa1);
	toy_frame(f1, 0, 1, HEAP + 0x800);
	fake_put8(state, 0x55);
	fake_put64(state + 8, f1);
	toy_ar(STACK + 0x100, state, 0, MAIN_RA);
	d.caller_sp_off = 1;
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	vmstack_walk_user(&w);
	/* The VM frame, then its native frame kept: no step to a 1-byte rise. */
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xa1) && ips[2] == VM_LO + 0x10);
	d.caller_sp_off = 32;
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	vmstack_walk_user(&w);
	CHECK(ips[2] == MAIN_RA);
}

/*
 * CPython 3.11's shape (ABI 3.2): C calls Python calls C calls Python. Each
 * native frame of the interpreter has its _PyCFrame at sp + 0x40, linked
 * from its thread's state, found on the interpreter's thread list by the
 * thread's id; frames link by ->previous to the one marked is_entry;
 * code objects are the identities, checked by their type word.
 */
#define PY_CFRAME	0x40
#define PY_CODE_TYPE	0xc0de00UL

static struct vmstack_vm_desc py_desc(void)
{
	struct vmstack_vm_desc d = { 0 };

	d.code_start = VM_LO;
	d.code_end = VM_HI;
	d.flags = VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC | VMSTACK_VM_F_NO_BUILTINS |
		  VMSTACK_VM_F_AR_CHAIN | VMSTACK_VM_F_TOP_AR | VMSTACK_VM_F_FUNC_IDENT |
		  VMSTACK_VM_F_KIND_WORD;
	d.state_from = VMSTACK_VM_STATE_THREAD;
	d.state_addr = HEAP + 0xa00;
	d.thr_head_off = 0x10;
	d.thr_next_off = 0x08;
	d.thr_tid_off = 0xa0;
	d.thr_max = 8;
	d.check_off = 0x18;
	d.check_val = 1;
	d.ar_off = PY_CFRAME;
	d.state_ar_off = 0x38;
	d.ar_prev_off = 0x10;
	d.ar_chain_max = 8;
	d.top_off = 0x08;
	d.link = VMSTACK_VM_LINK_POINTER;
	d.link_off = 0x30;
	d.flags_off = 0x44;
	d.bottom_flags = 0xff;
	d.func_off = 0x20;
	d.func_mask = ~0ULL;
	d.kind_off = 0x08;
	d.kind_word = PY_CODE_TYPE;
	d.frame_pc_off = 0x38;
	d.max_frames = 16;
	return d;
}

static void py_frame(unsigned long f, unsigned long prev, unsigned long code, bool entry)
{
	fake_put64(f + 0x20, code);
	fake_put64(f + 0x30, prev);
	fake_put64(f + 0x38, code + 0xb8 + 6);
	fake_put8(f + 0x44, entry);
	fake_put64(code + 0x08, PY_CODE_TYPE);
}

UNIT_TEST(walk_cpython_shape)
{
	struct vmstack_vm_desc d = py_desc();
	const unsigned long ts = HEAP, other = HEAP + 0x200, interp = HEAP + 0x900;
	const unsigned long cf1 = STACK + 0x110 + PY_CFRAME, cf0 = STACK + 0x310 + PY_CFRAME;
	const unsigned long f1 = HEAP + 0x400, f2 = HEAP + 0x480, f3 = HEAP + 0x500;
	const unsigned long c1 = HEAP + 0x1000, c2 = HEAP + 0x1100, c3 = HEAP + 0x1200;
	struct vmstack_walk w;
	unsigned long reads;

	CHECK(vmstack_desc3_check(&d) == NULL);
	mem_setup();
	/* leaf C -> inner interpreter -> C bridge -> outer interpreter -> main */
	fp_frame(STACK + 0x100, STACK + 0x200, VM_LO + 0x20);
	fp_frame(STACK + 0x200, STACK + 0x300, 0x500040);
	fp_frame(STACK + 0x300, STACK + 0x400, VM_LO + 0x30);
	fp_frame(STACK + 0x400, 0, MAIN_RA);
	/* Two threads; ours (tid 42) is second on the list. */
	fake_put64(HEAP + 0xa00, interp);
	fake_put64(interp + 0x10, other);
	fake_put64(other + 0x08, ts);
	fake_put32(other + 0xa0, 41);
	fake_put8(other + 0x18, 1);
	fake_put32(ts + 0xa0, 42);
	fake_put8(ts + 0x18, 1);
	fake_put64(ts + 0x38, cf1);
	fake_put64(cf1 + 0x08, f3);
	fake_put64(cf1 + 0x10, cf0);
	fake_put64(cf0 + 0x08, f2);
	fake_put64(cf0 + 0x10, ts + 0x150);	/* the root _PyCFrame, then NULL */
	py_frame(f1, 0, c1, true);
	py_frame(f2, f1, c2, false);
	py_frame(f3, f2, c3, true);
	w = walk_from(0x500000, STACK + 0xf0, STACK + 0x100);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	w.tid = 42;
	CHECK(vmstack_walk_user(&w) == 9);
	CHECK(ips[0] == 0x500000);
	CHECK(ips[1] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, c3) && ips[2] == c3 + 0xb8 + 6);
	CHECK(ips[3] == 0x500040);
	CHECK(ips[4] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, c2));
	CHECK(ips[6] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, c1) && ips[8] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);

	/* The inner activation not linked yet (its prologue): its native frame stays. */
	fake_put64(ts + 0x38, cf0);
	w = walk_from(0x500000, STACK + 0xf0, STACK + 0x100);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	w.tid = 42;
	CHECK(vmstack_walk_user(&w) == 8);
	CHECK(ips[1] == VM_LO + 0x20 && ips[2] == 0x500040);
	CHECK(ips[3] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, c2) && ips[7] == MAIN_RA);

	/* A thread not on the list: no state, native frames after a marker. */
	w = walk_from(0x500000, STACK + 0xf0, STACK + 0x100);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	w.tid = 7;
	vmstack_walk_user(&w);
	CHECK(ips[1] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 1) && ips[2] == VM_LO + 0x20);
	CHECK(w.flags & VMSTACK_SF_VM_BROKEN);

	/* A code object of another type: bad data, cut. */
	fake_put64(ts + 0x38, cf1);
	fake_put64(c3 + 0x08, PY_CODE_TYPE + 8);
	w = walk_from(0x500000, STACK + 0xf0, STACK + 0x100);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	w.tid = 42;
	vmstack_walk_user(&w);
	CHECK(ips[1] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 2));
	/* A thread list that loops: bounded by thr_max. */
	fake_put64(ts + 0x08, other);
	w = walk_from(0x500000, STACK + 0xf0, STACK + 0x100);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	w.tid = 7;
	reads = fake_mem_reads();
	vmstack_walk_user(&w);
	/* 2 to the list, 2 per state (8), once per sample; the native walk. */
	CHECK(fake_mem_reads() - reads < 2 + 2 * 8 + 20);
}

UNIT_TEST(vm_desc_checks)
{
	struct vmstack_vm_desc d = toy_desc();

	CHECK(vmstack_desc3_check(&d) == NULL);
	d.code_end = d.code_start;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = toy_desc();
	d.max_frames = VMSTACK_VM_MAX_FRAMES + 1;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = toy_desc();
	d.flags |= VMSTACK_VM_F_NATIVE_STEP;	/* an empty activation needs its AR */
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = toy_desc();
	d.top_reg = __VMSTACK_VM_REG_MAX;
	CHECK(vmstack_desc3_check(&d) != NULL);
	/* A thread list: aligned, 1..VMSTACK_VM_THREADS_MAX states. */
	d = py_desc();
	d.thr_max = VMSTACK_VM_THREADS_MAX + 1;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d = py_desc();
	d.state_addr |= 4;
	CHECK(vmstack_desc3_check(&d) != NULL);
	/* A chain needs a state. */
	d = py_desc();
	d.state_from = VMSTACK_VM_STATE_NONE;
	d.top_reg = VMSTACK_VM_REG_RBP;
	CHECK(vmstack_desc3_check(&d) != NULL);
}
