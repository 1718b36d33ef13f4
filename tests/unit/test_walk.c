// SPDX-License-Identifier: GPL-2.0
/*
 * The module's user-stack walker (module/unwind_user.c, vm_walk.c,
 * uw_rows.c, vm_check.c), built for the host and run on fake stacks:
 * frame-pointer chains, unwind rules, loops, faults, the depth cap, VM
 * frames linked by pointers, and activations without VM frames.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "unit.h"
#include "walk.h"

#define STACK	0x7ff000000000UL	/* a native stack */
#define HEAP	0x10000000UL		/* VM states, frames, functions */
#define VM_LO	0x400000UL		/* the interpreter's code */
#define VM_HI	0x401000UL
#define MAIN_RA	0x500100UL		/* native code, no memory needed */

static u64 ips[600];

static struct vmstack_walk walk_from(unsigned long ip, unsigned long sp,
				     unsigned long bp)
{
	struct vmstack_walk w = { .ips = ips, .max = 64, .ip = ip, .sp = sp,
				  .reads_left = VMSTACK_MAX_READS, .deadline = ~0ULL };

	memset(ips, 0, sizeof(ips));
	w.regs[VMSTACK_VM_REG_RBP] = bp;
	return w;
}

static void mem_setup(void)
{
	fake_mem_reset();
	fake_mem_map(STACK, 0x10000);
	fake_mem_map(HEAP, 0x10000);
}

/* A frame-pointer frame at @bp: saved rbp, return address. */
static void fp_frame(unsigned long bp, unsigned long saved, unsigned long ra)
{
	fake_put64(bp, saved);
	fake_put64(bp + 8, ra);
}

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

/*
 * A toy VM whose frames point to their callers, as Lua 5.4's CallInfos:
 *   frame: +0 caller frame, +8 u16 flags (1: entered from C, 2: native),
 *          +16 function;  function: +0 u8 kind (1 script, 2 native),
 *          +8 identity.
 * Its state (STATE_AR) is found at the activation record (the VM's native
 * frame's sp): AR +0 state, +8 s32 (< 0: an activation without frames),
 * +16 caller's rbp, +24 return address, AR + 32 the caller's sp. The
 * state: +0 u8 0x55 (its type), +8 the top frame.
 */
static struct vmstack_vm_desc toy_desc(void)
{
	struct vmstack_vm_desc d;

	memset(&d, 0, sizeof(d));
	d.code_start = VM_LO;
	d.code_end = VM_HI;
	d.state_from = VMSTACK_VM_STATE_AR;
	d.check_val = 0x55;
	d.top_reg = VMSTACK_VM_REG_RDX;
	d.top_off = 8;
	d.link = VMSTACK_VM_LINK_POINTER;
	d.flags_off = 8;
	d.bottom_flags = 1;
	d.native_flags = 2;
	d.func_off = 16;
	d.func_mask = ~0ULL;
	d.kind_script = 1;
	d.kind_native = 2;
	d.ident_off = 8;
	d.caller_bp_off = 16;
	d.caller_ra_off = 24;
	d.caller_sp_off = 32;
	d.flags = VMSTACK_VM_F_AR_EMPTY;
	d.ar_empty_off = 8;
	d.max_frames = 16;
	return d;
}

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
	toy_fn(HEAP + 0x800, 0xa1);
	toy_frame(f1, f2, 0, HEAP + 0x800);
	toy_frame(f2, f1, 0, HEAP + 0x800);
	fake_put8(state, 0x55);
	fake_put64(state + 8, f1);
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
 * Compiled code, as LuaJIT keeps it: r14 is an anchor A with the running
 * object's number at A + 0 (s32), the table's size at A + 4 and the table
 * at A + 8. Object n at HEAP + 0x1000 * n: code at +0x58 (size +0x54),
 * link +0x6a, root +0x6c, next of the same root +0x70 (u16 each). Its
 * state (A + 0x10) is 0 here: the walk stops after the compiled frame.
 */
#define JIT_A		(HEAP + 0x100)
#define JIT_TABLE	(HEAP + 0x200)
#define JIT_CODE(n)	(0x900000UL + 0x1000 * (n))

static void jit_object(unsigned int n, u16 link, u16 root, u16 next)
{
	unsigned long o = HEAP + 0x1000 * n;

	fake_put64(JIT_TABLE + 8 * n, o);
	fake_put64(o + 0x58, JIT_CODE(n));
	fake_put32(o + 0x54, 0x100);
	fake_put16(o + 0x6a, link);
	fake_put16(o + 0x6c, root);
	fake_put16(o + 0x70, next);
}

/*
 * Which object a sample at @pc is given with r14 = @r14 and the anchors
 * kept in @seen (NULL: none kept); 0 if none.
 */
static unsigned long jit_found_at(struct vmstack_vm_desc *d, unsigned long pc,
				  unsigned long r14, unsigned long *seen)
{
	struct vmstack_walk w = walk_from(pc, STACK + 0x100, 0);

	w.regs[VMSTACK_VM_REG_R14] = r14;
	w.vms = desc4_of(d, 1);
	w.nr_vms = 1;
	w.jit_seen = seen;
	vmstack_walk_user(&w);
	if (!vmstack_is_vmw(ips[0]) || vmstack_vmw_kind(ips[0]) != VMSTACK_VMW_JIT)
		return 0;
	return vmstack_vmw_value(ips[0]);
}

/* Which object a sample at @pc is given, with vmstate @id (0: none). */
static unsigned long jit_found(struct vmstack_vm_desc *d, s32 id, unsigned long pc)
{
	fake_put32(JIT_A, (u32)id);
	return jit_found_at(d, pc, JIT_A, NULL);
}

/* The toy VM with compiled code found through r14 (the layout above). */
static struct vmstack_vm_desc jit_desc(void)
{
	struct vmstack_vm_desc d = toy_desc();

	d.flags = VMSTACK_VM_F_JIT;
	d.jit_reg = VMSTACK_VM_REG_R14;
	d.jit_count_off = 4;
	d.jit_table_off = 8;
	d.jit_state_off = 0x10;
	d.jit_code_off = 0x58;
	d.jit_size_off = 0x54;
	d.jit_link_off = 0x6a;
	d.jit_root_off = 0x6c;
	d.jit_side_off = 0x70;
	d.jit_near_max = 4;
	return d;
}

UNIT_TEST(walk_jit_near)
{
	struct vmstack_vm_desc d = jit_desc();

	mem_setup();
	fake_put32(JIT_A + 4, 16);
	fake_put64(JIT_A + 8, JIT_TABLE);
	jit_object(1, 0, 0, 2);		/* a root: its side traces 2, 5, 6, 7 */
	jit_object(2, 3, 1, 5);		/* a side trace of 1, linking to 3 */
	jit_object(3, 3, 0, 0);		/* a root that loops */
	jit_object(4, 0, 0, 0);		/* a root nothing links to */
	jit_object(5, 0, 1, 6);
	jit_object(6, 0, 1, 7);
	jit_object(7, 0, 1, 0);
	d.flags |= VMSTACK_VM_F_JIT_NEAR;
	CHECK(vmstack_desc3_check(&d) == NULL);
	d.jit_near_max = 0;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d.jit_near_max = 4;
	CHECK(jit_found(&d, 1, JIT_CODE(1) + 8) == HEAP + 0x1000);
	/* Side trace 2 entered from 1's exit, before it stored its number. */
	CHECK(jit_found(&d, 1, JIT_CODE(2)) == HEAP + 0x2000);
	/* Root trace 3 entered by 2's link. */
	CHECK(jit_found(&d, 2, JIT_CODE(3)) == HEAP + 0x3000);
	/* From side trace 5, its sibling 6 through their root's chain. */
	CHECK(jit_found(&d, 5, JIT_CODE(6) + 0x20) == HEAP + 0x6000);
	/* Nothing leads from 3 to 4: not claimed, a native [unknown] frame. */
	CHECK(jit_found(&d, 3, JIT_CODE(4)) == 0 && ips[0] == JIT_CODE(4));
	/* At most jit_near_max objects: the link, then 2, 5, 6; not 7. */
	CHECK(jit_found(&d, 1, JIT_CODE(6)) == HEAP + 0x6000);
	CHECK(jit_found(&d, 1, JIT_CODE(7)) == 0);
	/* A chain that loops ends at the cap too. */
	jit_object(6, 0, 1, 5);
	CHECK(jit_found(&d, 1, JIT_CODE(7)) == 0);
	/* Without the flag, only the object the number names. */
	d.flags &= ~VMSTACK_VM_F_JIT_NEAR;
	CHECK(jit_found(&d, 1, JIT_CODE(2)) == 0);
}

/*
 * A sample in C code that compiled code called through the FFI, after that
 * C code reused the anchor register: the anchor this CPU proved last (in
 * an earlier sample) serves if the object it names holds the return
 * address; an anchor whose object does not is not used.
 */
UNIT_TEST(walk_jit_seen)
{
	struct vmstack_vm_desc d = jit_desc();
	unsigned long seen[VMSTACK_VM_MAX] = { 0 };

	mem_setup();
	fake_put32(JIT_A + 4, 16);
	fake_put64(JIT_A + 8, JIT_TABLE);
	jit_object(1, 0, 0, 0);
	jit_object(2, 0, 0, 0);
	/* In compiled code, r14 right: found, and kept. */
	fake_put32(JIT_A, 1);
	CHECK(jit_found_at(&d, JIT_CODE(1) + 8, JIT_A, seen) == HEAP + 0x1000);
	CHECK(seen[0] == JIT_A);
	/* r14 reused: not found without what was kept, found with it. */
	CHECK(jit_found_at(&d, JIT_CODE(1) + 0x10, 0x1234, NULL) == 0);
	CHECK(jit_found_at(&d, JIT_CODE(1) + 0x10, 0x1234, seen) == HEAP + 0x1000);
	/* The kept anchor names object 2 now, which does not hold the PC. */
	fake_put32(JIT_A, 2);
	CHECK(jit_found_at(&d, JIT_CODE(1) + 0x10, 0x1234, seen) == 0);
}

/*
 * LuaJIT without GC64 (Tarantool's), F_REF32: a frame is one slot, the
 * function a 32-bit reference in its low half, the link in its high half;
 * the state in the activation record, the stack base, a function's
 * bytecode and the JIT's state and base are 32-bit references, the
 * compiled-code table has 4-byte entries, and compiled code finds the
 * global state through a pointer variable (no register holds it).
 * Layout as Tarantool 2.6's: AR +24 u32 L, +64 caller's rbp, +72 return
 * address, 80 bytes; L: +5 gct (6), +16 base, +36 u32 stack, +48 cframe;
 * GCfunc: +6 ffid (0 Lua, 1 C), +16 u32 pc = proto + 64; G = *anchor + 64:
 * +120 vmstate, +280 u32 cur_L, +284 u32 jit_base, +816 the trace table,
 * +828 its size; GCtrace: +60 size, +64 code.
 */
#define R32_L		HEAP
#define R32_STACK	(HEAP + 0x2000)
#define R32_BC		(HEAP + 0x3000)
#define R32_G		(HEAP + 0x4000)
#define R32_ANCHOR	(HEAP + 0x5000)
#define R32_TRACE	(HEAP + 0x6000)
#define R32_TABLE	(HEAP + 0x6800)

static struct vmstack_vm_desc ref32_desc(void)
{
	struct vmstack_vm_desc d;

	memset(&d, 0, sizeof(d));
	d.code_start = VM_LO;
	d.code_end = VM_HI;
	d.flags = VMSTACK_VM_F_REF32 | VMSTACK_VM_F_JIT;
	d.state_from = VMSTACK_VM_STATE_AR;
	d.state_off = 24;
	d.check_off = 5;
	d.check_val = 6;
	d.top_reg = VMSTACK_VM_REG_RDX;
	d.pc_reg = VMSTACK_VM_REG_RBX;
	d.top_off = 16;
	d.top_adj = -8;
	d.stack_off = 36;
	d.stack_max = 1U << 20;
	d.link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d.link_off = 4;
	d.type_mask = 7;
	d.pc_mask = 3;
	d.insn_off = -4;
	d.insn_shift = 8;
	d.insn_bits = 8;
	d.extra = 1;
	d.slot = 8;
	d.bottom_types = 1U << 1 | 1U << 5;
	d.func_off = 0;
	d.func_mask = ~0ULL;
	d.kind_off = 6;
	d.kind_script = 0;
	d.kind_native = 1;
	d.ident_off = 16;
	d.ident_adj = -64;
	d.caller_bp_off = 64;
	d.caller_ra_off = 72;
	d.caller_sp_off = 80;
	d.max_frames = 16;
	d.jit_anchor_ptr = R32_ANCHOR;
	d.jit_anchor_adj = 64;
	d.jit_id_off = 120;
	d.jit_table_off = 816;
	d.jit_count_off = 828;
	d.jit_code_off = 64;
	d.jit_size_off = 60;
	d.jit_state_off = 280;
	d.jit_top_off = 284;
	d.state_ar_off = 48;
	d.ar_mask = 3;
	return d;
}

/* A Lua function at @fn whose prototype is @proto. */
static void ref32_fn(unsigned long fn, unsigned long proto)
{
	fake_put8(fn + 6, 0);
	fake_put32(fn + 16, (u32)(proto + 64));
}

/*
 * outer (entered from C) called inner with a CALL whose A is 2: outer's
 * frame slot at R32_STACK, inner's at R32_STACK + 8 * (1 + 2). Returns
 * inner's base. The halves next to every 32-bit reference hold junk, so
 * a 64-bit read would go wrong.
 */
static unsigned long ref32_stack(void)
{
	const unsigned long f1 = R32_STACK, f2 = R32_STACK + 24;

	ref32_fn(HEAP + 0x800, HEAP + 0x1000);	/* inner */
	ref32_fn(HEAP + 0x840, HEAP + 0x1100);	/* outer */
	fake_put32(HEAP + 0x800 + 20, 0xdeadbeef);
	fake_put32(f1, HEAP + 0x840);
	fake_put32(f1 + 4, 0x10 | 1);		/* FRAME_C, 16 bytes */
	fake_put32(R32_BC, 2 << 8 | 0x42);	/* CALL A=2 */
	fake_put32(f2, HEAP + 0x800);
	fake_put32(f2 + 4, R32_BC + 4);		/* the return PC */
	fake_put8(R32_L + 5, 6);
	fake_put64(R32_L + 16, f2 + 8);
	fake_put32(R32_L + 32, 0xdeadbeef);
	fake_put32(R32_L + 36, R32_STACK);
	fake_put64(R32_L + 48, STACK + 0x100);
	/* The interpreter's C frame. */
	fake_put32(STACK + 0x100 + 24, R32_L);
	fake_put32(STACK + 0x100 + 28, 0xdeadbeef);
	fake_put64(STACK + 0x100 + 64, 0);
	fake_put64(STACK + 0x100 + 72, MAIN_RA);
	return f2 + 8;
}

UNIT_TEST(walk_vm_ref32)
{
	struct vmstack_vm_desc d = ref32_desc();
	struct vmstack_walk w;
	unsigned long base;

	CHECK(vmstack_desc3_check(&d) == NULL);
	mem_setup();
	base = ref32_stack();
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	w.regs[VMSTACK_VM_REG_RDX] = base;
	w.regs[VMSTACK_VM_REG_RBX] = R32_BC + 0x40;
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	CHECK(vmstack_walk_user(&w) == 5);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, HEAP + 0x1000) &&
	      ips[1] == R32_BC + 0x40);
	CHECK(ips[2] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, HEAP + 0x1100) &&
	      ips[3] == R32_BC + 4);
	CHECK(ips[4] == MAIN_RA);
	CHECK(w.flags == VMSTACK_SF_VM);
	/* The same memory read with native-sized references: no sane state. */
	d.flags &= ~VMSTACK_VM_F_REF32;
	w = walk_from(VM_LO + 0x10, STACK + 0x100, 0);
	w.regs[VMSTACK_VM_REG_RDX] = base;
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	vmstack_walk_user(&w);
	CHECK(w.flags & VMSTACK_SF_VM_BROKEN);
}

/* A sample in a trace: G through the anchor variable, 4-byte entries. */
UNIT_TEST(walk_jit_anchor_ptr)
{
	struct vmstack_vm_desc d = ref32_desc();
	const unsigned long code = 0x900000;
	struct vmstack_walk w;
	unsigned long base;

	mem_setup();
	base = ref32_stack();
	fake_put64(R32_ANCHOR, R32_G - 64);	/* tarantool_L: G is L + 64 */
	fake_put32(R32_G + 120, 3);		/* vmstate: trace 3 */
	fake_put64(R32_G + 816, R32_TABLE);
	fake_put32(R32_G + 828, 8);
	fake_put32(R32_TABLE + 4 * 3, R32_TRACE);
	fake_put32(R32_TABLE + 4 * 4, 0xdeadbeef);
	fake_put64(R32_TRACE + 64, code);
	fake_put32(R32_TRACE + 60, 0x200);
	fake_put32(R32_G + 280, R32_L);		/* cur_L */
	fake_put32(R32_G + 284, (u32)base);	/* jit_base */
	w = walk_from(code + 0x10, STACK + 0x80, 0);
	w.vms = desc4_of(&d, 1);
	w.nr_vms = 1;
	CHECK(vmstack_walk_user(&w) == 6);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_JIT, 0, R32_TRACE));
	CHECK(ips[1] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, HEAP + 0x1000) && ips[2] == 0);
	CHECK(ips[3] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, HEAP + 0x1100));
	CHECK(ips[5] == MAIN_RA);
	/* No anchor variable: the descriptor is refused. */
	d.jit_anchor_ptr = 0;
	CHECK(vmstack_desc3_check(&d) != NULL);
	d.jit_anchor_ptr = R32_ANCHOR + 4;
	CHECK(vmstack_desc3_check(&d) != NULL);
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
