// SPDX-License-Identifier: GPL-2.0
/*
 * The module's user-stack walker (module/unwind_user.c, vm_walk.c,
 * uw_rows.c, vm_check.c), built for the host and run on fake stacks:
 * frame-pointer chains, unwind rules, loops, faults, the depth cap, and
 * the bounds of a walk (reads, faults, the deadline). VM frames are in
 * test_walk_vm.c, compiled code in test_walk_jit.c; the setup they share
 * in walk_setup.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "unit.h"
#include "walk_setup.h"

UNIT_TEST(walk_fp_chain)
{
	struct vmstack_walk w;

	mem_setup();
	fp_frame(STACK + 0x200, STACK + 0x300, 0x500010);
	fp_frame(STACK + 0x300, STACK + 0x400, 0x500020);
	fp_frame(STACK + 0x400, 0, 0x500030);
	w = walk_from(0x500000, STACK + 0x100, STACK + 0x200);
	CHECK(vmstack_walk_user(&w) == 4);
	CHECK(ips[0] == 0x500000 && ips[1] == 0x500010 && ips[2] == 0x500020 &&
	      ips[3] == 0x500030);
	CHECK(w.flags == 0);
}

/* A frame that names itself as its caller, and one in unmapped memory. */
UNIT_TEST(walk_fp_loop_and_fault)
{
	struct vmstack_walk w;

	mem_setup();
	fp_frame(STACK + 0x200, STACK + 0x200, 0x500010);
	w = walk_from(0x500000, STACK + 0x100, STACK + 0x200);
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(w.flags == VMSTACK_SF_USER_BROKEN);
	w = walk_from(0x500000, STACK + 0x100, STACK + 0x100000);
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(w.flags == VMSTACK_SF_USER_FAULT);
	/* Below the stack pointer: not a caller's frame. */
	w = walk_from(0x500000, STACK + 0x100, STACK + 0x80);
	CHECK(vmstack_walk_user(&w) == 1);
	CHECK(w.flags == VMSTACK_SF_USER_BROKEN);
}

UNIT_TEST(walk_depth_cap)
{
	struct vmstack_walk w;
	int i;

	mem_setup();
	for (i = 0; i < 100; i++)
		fp_frame(STACK + 0x100 + 16 * i, STACK + 0x100 + 16 * (i + 1), 0x500000 + i);
	w = walk_from(0x500000, STACK, STACK + 0x100);
	w.max = 10;
	CHECK(vmstack_walk_user(&w) == 10);
	CHECK(w.flags == VMSTACK_SF_USER_TRUNC);
}

/* One mapping [0x500000, 0x501000) whose code keeps no frame pointer. */
static struct vmstack_uw_set *rules_rsp16(void)
{
	struct vmstack_uw_table *t = calloc(1, sizeof(*t) + sizeof(t->rows[0]));
	struct vmstack_uw_set *set = calloc(1, sizeof(*set) + sizeof(set->maps[0]));

	t->span = 0x1000;
	t->nrows = 1;
	t->rows[0] = (struct vmstack_uw_row){ .start = 0, .cfa_off = 16,
		.cfa = VMSTACK_UW_CFA_RSP, .rbp = VMSTACK_UW_RBP_SAME };
	set->nr = 1;
	set->maps[0] = (struct vmstack_uw_place){ .start = 0x500000, .end = 0x501000, .t = t };
	return set;
}

static void rules_free(struct vmstack_uw_set *set)
{
	free(set->maps[0].t);
	free(set);
}

UNIT_TEST(walk_rules)
{
	struct vmstack_uw_set *set = rules_rsp16();
	struct vmstack_walk w;

	mem_setup();
	CHECK(vmstack_uw_rows_check(set->maps[0].t) == NULL);
	fake_put64(STACK + 0x108, 0x500100);	/* CFA = rsp + 16: ra at CFA - 8 */
	fake_put64(STACK + 0x118, 0x600000);	/* outside the rules: fp, rbp 0 */
	w = walk_from(0x500010, STACK + 0x100, 0);
	w.rules = set;
	CHECK(vmstack_walk_user(&w) == 3);
	CHECK(ips[0] == 0x500010 && ips[1] == 0x500100 && ips[2] == 0x600000);
	CHECK(w.flags == 0);
	/* Rows the module refuses. */
	set->maps[0].t->rows[0].cfa_off = 4;
	CHECK(vmstack_uw_rows_check(set->maps[0].t) != NULL);
	rules_free(set);
}

/*
 * The per-CPU cache answers what the lookup answers, misses once per
 * address, and holds for one set: another set's entries never match.
 */
UNIT_TEST(walk_rule_cache)
{
	static struct vmstack_uw_cache cache;
	struct vmstack_uw_set *set = rules_rsp16(), *other = rules_rsp16();
	/* In distinct slots. */
	const unsigned long pcs[] = { 0x500010, 0x500100, 0x600000, 0x4ffff0, 0x500010 };
	struct vmstack_walk w;
	unsigned int i, round;
	bool hit;

	set->gen = 1;
	other->gen = 2;
	for (round = 0; round < 2; round++)
		for (i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
			CHECK(vmstack_uw_lookup_cached(set, &cache, pcs[i], &hit) ==
			      vmstack_uw_lookup(set, pcs[i]));
			/* New in round 0 but for the repeated address. */
			CHECK(hit == (round > 0 || i == 4));
		}
	/* Same addresses, another set: misses, and its own rows. */
	CHECK(vmstack_uw_lookup_cached(other, &cache, 0x500010, &hit) ==
	      &other->maps[0].t->rows[0] && !hit);
	/* Two addresses in one slot take turns, never answer for each other. */
	for (i = 0; i < VMSTACK_UW_CACHE; i++)
		cache.e[i].gen = 0;
	CHECK(vmstack_uw_lookup_cached(set, &cache, 0x500010, &hit) && !hit);
	CHECK(vmstack_uw_lookup_cached(set, &cache, 0x501010, &hit) ==
	      vmstack_uw_lookup(set, 0x501010) && !hit);
	CHECK(vmstack_uw_lookup_cached(set, &cache, 0x500010, &hit) ==
	      &set->maps[0].t->rows[0] && !hit);
	/* A walk counts its lookups and hits. */
	mem_setup();
	fake_put64(STACK + 0x108, 0x500100);
	fake_put64(STACK + 0x118, 0x600000);
	w = walk_from(0x500010, STACK + 0x100, 0);
	w.rules = set;
	w.uw_cache = &cache;
	CHECK(vmstack_walk_user(&w) == 3);
	CHECK(ips[0] == 0x500010 && ips[1] == 0x500100 && ips[2] == 0x600000);
	CHECK(w.uw_lookups == 3 && w.uw_hits <= 3);
	rules_free(set);
	rules_free(other);
}

/* A VM whose code is all of user space, each frame a chain of hidden frames. */
static struct vmstack_vm_desc hidden_chain_desc(void)
{
	struct vmstack_vm_desc d = {
		.code_start = 0x1000, .code_end = 0x7ffffffff000UL,
		.state_from = VMSTACK_VM_STATE_NONE, .top_reg = VMSTACK_VM_REG_RBP,
		.link = VMSTACK_VM_LINK_POINTER, .flags_off = 8, .native_flags = 0xffff,
		.flags = VMSTACK_VM_F_NATIVE_STEP, .func_mask = ~0ULL,
		.max_frames = VMSTACK_VM_MAX_FRAMES,
	};

	return d;
}

/*
 * A target that makes every native frame a VM frame with a long chain of
 * hidden frames: the reads stop at the budget, the walk ends marked.
 */
UNIT_TEST(walk_read_budget)
{
	struct vmstack_vm_desc d = hidden_chain_desc();
	struct vmstack_walk w;
	unsigned long reads;
	int i;

	CHECK(vmstack_desc3_check(&d) == NULL);
	mem_setup();
	/* 600 frame-pointer frames: each also a "VM frame" chain up the stack. */
	for (i = 0; i < 600; i++)
		fp_frame(STACK + 0x100 + 16 * i, STACK + 0x100 + 16 * (i + 1), 0x500000 + i);
	w = walk_from(0x500000, STACK, STACK + 0x100);
	w.max = VMSTACK_MAX_DEPTH;
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	vmstack_walk_user(&w);
	reads = fake_mem_reads();
	CHECK(w.flags & VMSTACK_SF_BUDGET);
	CHECK(!(w.flags & VMSTACK_SF_USER_FAULT));
	CHECK(reads <= VMSTACK_MAX_READS + 1);
	/* The last word: the VM part cut, for the budget's reason (5). */
	CHECK(w.n > 0 && ips[w.n - 1] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 5));
}

/* 600 frame-pointer frames from STACK + 0x100 up, no rules: a deep native stack. */
static struct vmstack_walk deep_fp_walk(const struct vmstack_vm_desc *d, u32 nr_vms)
{
	struct vmstack_walk w;
	int i;

	mem_setup();
	for (i = 0; i < 600; i++)
		fp_frame(STACK + 0x100 + 16 * i, STACK + 0x100 + 16 * (i + 1), 0x500000 + i);
	w = walk_from(0x500000, STACK, STACK + 0x100);
	w.max = VMSTACK_MAX_DEPTH;
	w.vms = desc4_of(d, nr_vms);
	w.nr_vms = nr_vms;
	return w;
}

/*
 * Issue 27's descriptors: four VMs with compiled code whose anchor is a
 * variable at an unmapped address, on a deep stack without unwind rules
 * (every frame a candidate for compiled code). The anchor is the same at
 * every frame: each VM's faults once per sample (it faulted at every
 * frame, 2,048 faults), and the native stack is whole.
 */
UNIT_TEST(walk_jit_anchor_faults_once)
{
	struct vmstack_vm_desc d[VMSTACK_VM_MAX];
	struct vmstack_walk w;
	int i;

	for (i = 0; i < VMSTACK_VM_MAX; i++) {
		memset(&d[i], 0, sizeof(d[i]));
		d[i].code_start = 0x1000;
		d[i].code_end = 0x2000;
		d[i].top_reg = VMSTACK_VM_REG_RBP;
		d[i].link = VMSTACK_VM_LINK_POINTER;
		d[i].max_frames = 1;
		d[i].flags = VMSTACK_VM_F_JIT;
		d[i].jit_anchor_ptr = 0x3000 + 0x1000 * i;
		CHECK(vmstack_desc3_check(&d[i]) == NULL);
	}
	w = deep_fp_walk(d, VMSTACK_VM_MAX);
	CHECK(vmstack_walk_user(&w) == VMSTACK_MAX_DEPTH);
	CHECK(w.flags == VMSTACK_SF_USER_TRUNC);
	CHECK(fake_mem_faults() == VMSTACK_VM_MAX);
	CHECK(ips[VMSTACK_MAX_DEPTH - 1] == 0x500000 + VMSTACK_MAX_DEPTH - 2);
	/* An anchor register pointing nowhere: the same. */
	for (i = 0; i < VMSTACK_VM_MAX; i++)
		d[i].jit_reg = VMSTACK_VM_REG_R14;
	w = deep_fp_walk(d, VMSTACK_VM_MAX);
	w.regs[VMSTACK_VM_REG_R14] = 0x3000;
	CHECK(vmstack_walk_user(&w) == VMSTACK_MAX_DEPTH);
	CHECK(fake_mem_faults() == VMSTACK_VM_MAX);
}

/*
 * A VM whose state is at an unmapped address, its code all of user space:
 * every native frame's VM walk faults. Past VMSTACK_MAX_VM_FAULTS no VM
 * memory is read; each VM frame stays native after a cut marker (the
 * budget's reason, 6), and the native walk goes to the depth cap.
 */
UNIT_TEST(walk_vm_fault_budget)
{
	struct vmstack_vm_desc d = {
		.code_start = 0x1000, .code_end = 0x7ffffffff000UL,
		.state_from = VMSTACK_VM_STATE_GLOBAL, .state_addr = 0x3000,
		.top_reg = VMSTACK_VM_REG_RBP, .link = VMSTACK_VM_LINK_POINTER,
		.flags = VMSTACK_VM_F_NATIVE_STEP, .func_mask = ~0ULL, .max_frames = 1,
	};
	struct vmstack_walk w;

	CHECK(vmstack_desc3_check(&d) == NULL);
	w = deep_fp_walk(&d, 1);
	CHECK(vmstack_walk_user(&w) == VMSTACK_MAX_DEPTH);
	CHECK(fake_mem_faults() == VMSTACK_MAX_VM_FAULTS);
	CHECK(w.flags == (VMSTACK_SF_USER_TRUNC | VMSTACK_SF_VM_BROKEN));
	/* Marker, native frame: the first ones for the state, then the budget. */
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 1) && ips[1] == 0x500000);
	CHECK(ips[VMSTACK_MAX_DEPTH - 2] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 7));
	CHECK(ips[VMSTACK_MAX_DEPTH - 1] == 0x500000 + VMSTACK_MAX_DEPTH / 2 - 2);
}

/*
 * The clock: a walk that reads as much as the read budget allows, each
 * read taking 100 ns, stops at the deadline instead (checked every
 * VMSTACK_CLOCK_READS reads), marked as the budget marks it.
 */
UNIT_TEST(walk_deadline)
{
	struct vmstack_vm_desc d = hidden_chain_desc();
	struct vmstack_walk w;

	w = deep_fp_walk(&d, 1);
	fake_mem_costs(100, 0);
	w.deadline = 50000;
	vmstack_walk_user(&w);
	CHECK(w.flags & VMSTACK_SF_BUDGET);
	CHECK(fake_mem_reads() >= 500 && fake_mem_reads() <= 500 + VMSTACK_CLOCK_READS);
	CHECK(vmstack_walk_clock() < w.deadline + VMSTACK_CLOCK_READS * 100);
	CHECK(w.n > 0 && ips[w.n - 1] == vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 5));
	/* A deadline far enough: the read budget ends it, as before. */
	w = deep_fp_walk(&d, 1);
	fake_mem_costs(100, 0);
	w.deadline = 1000000;
	vmstack_walk_user(&w);
	CHECK(w.flags & VMSTACK_SF_BUDGET);
	CHECK(fake_mem_reads() == VMSTACK_MAX_READS);
}
