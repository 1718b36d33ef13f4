// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lj_gc64_desc.h"

void lj_desc_common(struct vmstack_vm_desc *d)
{
	d->state_from = VMSTACK_VM_STATE_AR;
	d->check_val = 6;
	d->top_reg = VMSTACK_VM_REG_RDX;
	d->pc_reg = VMSTACK_VM_REG_RBX;
	d->top_adj = -8;
	d->stack_max = 1U << 20;
	d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d->type_mask = 7;
	d->pc_mask = 3;
	d->insn_off = -4;
	d->insn_shift = 8;
	d->insn_bits = 8;
	d->slot = 8;
	d->bottom_types = 1U << 1 | 1U << 5;
	d->kind_native = 1;
	d->caller_sp_off = 80;
	d->ar_mask = 3;
}

struct vmstack_vm_desc lj_gc64_desc(uint64_t code_start, uint64_t code_end)
{
	struct vmstack_vm_desc d;

	memset(&d, 0, sizeof(d));
	lj_desc_common(&d);
	d.code_start = code_start;
	d.code_end = code_end;
	d.ar_leaf_off = 8;
	d.state_off = 0x10;
	d.check_off = 9;
	d.top_off = 0x20;
	d.stack_off = 0x38;
	d.extra = 2;
	d.hide_types = 1U << 3;
	d.func_off = -8;
	d.func_mask = (1ULL << 47) - 1;
	d.kind_off = 0xa;
	d.max_frames = VMSTACK_VM_MAX_FRAMES;
	d.ident_off = 0x20;
	d.ident_adj = -0x68;
	d.caller_bp_off = 0x40;
	d.caller_ra_off = 0x48;
	d.flags = VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN | VMSTACK_VM_F_FUNC_CHECK |
		  VMSTACK_VM_F_PC_CHECK | VMSTACK_VM_F_BUILTIN_KIND;
	d.ar_empty_off = 8;
	d.state_ar_off = 0x50;
	d.ar_prev_off = 0x20;
	d.ar_chain_max = 64;
	d.func_check_off = 9;
	d.func_check_val = 8;
	d.kind_max = 222;
	d.pc_size_off = 0xc;
	d.pc_unit = 4;
	return d;
}
