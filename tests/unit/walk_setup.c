// SPDX-License-Identifier: GPL-2.0
/*
 * The fake stacks' setup the walker's tests share (walk_setup.h).
 */
#include <string.h>

#include "fake_mem.h"
#include "walk_setup.h"

u64 ips[600];

struct vmstack_walk walk_from(unsigned long ip, unsigned long sp, unsigned long bp)
{
	struct vmstack_walk w = { .ips = ips, .max = 64, .ip = ip, .sp = sp,
				  .reads_left = VMSTACK_MAX_READS, .deadline = ~0ULL };

	memset(ips, 0, sizeof(ips));
	w.regs[VMSTACK_VM_REG_RBP] = bp;
	return w;
}

void mem_setup(void)
{
	fake_mem_reset();
	fake_mem_map(STACK, 0x10000);
	fake_mem_map(HEAP, 0x10000);
}

/* A frame-pointer frame at @bp: saved rbp, return address. */
void fp_frame(unsigned long bp, unsigned long saved, unsigned long ra)
{
	fake_put64(bp, saved);
	fake_put64(bp + 8, ra);
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
struct vmstack_vm_desc toy_desc(void)
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
