// SPDX-License-Identifier: GPL-2.0
/*
 * The walker on fake stacks with compiled code, as LuaJIT keeps it: the
 * objects near the one the VM names, anchors kept from earlier samples,
 * and LuaJIT without GC64 (32-bit references, an anchor variable).
 */
#include <string.h>

#include "fake_mem.h"
#include "desc4_of.h"
#include "lj_gc64_desc.h"
#include "unit.h"
#include "walk_setup.h"

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
	lj_desc_common(&d);
	d.code_start = VM_LO;
	d.code_end = VM_HI;
	d.flags = VMSTACK_VM_F_REF32 | VMSTACK_VM_F_JIT;
	d.state_off = 24;
	d.check_off = 5;
	d.top_off = 16;
	d.stack_off = 36;
	d.link_off = 4;
	d.extra = 1;
	d.func_off = 0;
	d.func_mask = ~0ULL;
	d.kind_off = 6;
	d.kind_script = 0;
	d.ident_off = 16;
	d.ident_adj = -64;
	d.caller_bp_off = 64;
	d.caller_ra_off = 72;
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
