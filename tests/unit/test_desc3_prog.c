// SPDX-License-Identifier: GPL-2.0
/*
 * The translator takes every descriptor ABI 3.6's check took: random
 * descriptors (every flag combination the check allows, fields of any
 * value, masks and constants that fit no immediate) compile to programs
 * within ABI 4's limits (instructions, constants) that the module's check
 * accepts. The walk tests (test_walk*.c) hold the programs to 3.6's frames.
 */
#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "vm/desc3_prog.h"
#include "vm_prog_check.h"

static uint64_t seed = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A field value: small, negative, large, or any. */
static uint64_t some(void)
{
	switch (rnd() % 4) {
	case 0: return rnd() % 64;
	case 1: return (uint64_t)-(int64_t)(rnd() % 4096);
	case 2: return rnd() | 1ULL << 63;
	default: return rnd();
	}
}

/* A descriptor 3.6's check takes, at random. */
static void random_desc(struct vmstack_vm_desc *d)
{
	unsigned char *b = (unsigned char *)d;
	size_t i;

	for (i = 0; i < sizeof(*d); i += 8) {
		uint64_t v = some();

		memcpy(b + i, &v, sizeof(*d) - i < 8 ? sizeof(*d) - i : 8);
	}
	memset(d->pad_3_6, 0, sizeof(d->pad_3_6));
	d->code_start = 0x400000;
	d->code_end = 0x500000;
	d->flags &= VMSTACK_VM_F_ALL;
	d->state_from %= __VMSTACK_VM_STATE_MAX;
	d->link %= __VMSTACK_VM_LINK_MAX;
	d->top_reg %= __VMSTACK_VM_REG_MAX;
	d->pc_reg %= __VMSTACK_VM_REG_MAX;
	d->jit_reg %= __VMSTACK_VM_REG_MAX;
	if (d->state_from == VMSTACK_VM_STATE_NONE)
		d->top_reg = VMSTACK_VM_REG_RBP;
	d->max_frames = 1 + d->max_frames % VMSTACK_VM_MAX_FRAMES;
	d->state_addr = 0x600000 + (d->state_addr & 0xfff8);
	d->jit_anchor_ptr = 0x600000 + (d->jit_anchor_ptr & 0xfff8);
	d->thr_max = 1 + d->thr_max % VMSTACK_VM_THREADS_MAX;
	d->slot = 1 + d->slot % 64;
	d->insn_bits %= 17;
	d->insn_shift %= 32;
	d->stack_max = 1 + d->stack_max % (1U << 30);
	d->type_mask %= 32;
	d->cont_type = d->type_mask ? d->cont_type % (d->type_mask + 1) : 0;
	d->ar_mask %= 4096;
	d->ar_chain_max = 1 + d->ar_chain_max % VMSTACK_VM_AR_CHAIN_MAX;
	d->jit_near_max = 1 + d->jit_near_max % VMSTACK_VM_JIT_NEAR_MAX;
	d->pc_unit = 1 + d->pc_unit % 8;
	if (d->flags & VMSTACK_VM_F_JIT)
		d->flags &= ~VMSTACK_VM_F_NATIVE_STEP;
	if (d->flags & (VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN))
		d->flags &= ~VMSTACK_VM_F_NATIVE_STEP;
	if (d->flags & VMSTACK_VM_F_AR_EMPTY)
		d->state_from = VMSTACK_VM_STATE_AR;
	if (d->flags & (VMSTACK_VM_F_PC_CHECK | VMSTACK_VM_F_CONT_BOTTOM)) {
		d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
		d->flags &= ~VMSTACK_VM_F_FUNC_IDENT;
	}
	if (d->link == VMSTACK_VM_LINK_TAGGED_DELTA && !d->state_from)
		d->state_from = VMSTACK_VM_STATE_AR;
	if (d->flags & VMSTACK_VM_F_BUILTIN_KIND)
		d->flags &= ~(VMSTACK_VM_F_KIND_WORD | VMSTACK_VM_F_NO_BUILTINS);
	if (!(d->flags & VMSTACK_VM_F_JIT))
		d->flags &= ~VMSTACK_VM_F_JIT_NEAR;
	if ((d->flags & VMSTACK_VM_F_AR_CHAIN) && d->state_from == VMSTACK_VM_STATE_NONE)
		d->flags &= ~VMSTACK_VM_F_AR_CHAIN;
	/* Past 3.6: trace exits and code areas, LuaJIT's. */
	if (!(d->flags & VMSTACK_VM_F_JIT))
		d->flags &= ~(VMSTACK_VM_F_JIT_EXIT | VMSTACK_VM_F_JIT_AREAS);
	if (d->state_from != VMSTACK_VM_STATE_AR || !(d->flags & VMSTACK_VM_F_AR_CHAIN))
		d->flags &= ~VMSTACK_VM_F_JIT_EXIT;
	d->exit_anchor_off = (int32_t)((uint32_t)d->exit_anchor_off % 4096) & ~7;
	d->jit_areas_max = 1 + d->jit_areas_max % VMSTACK_VM_JIT_AREAS_MAX;
	/* The exit handler's first instructions, in the code, half the time. */
	d->exit_entry_start = d->code_start + d->exit_entry_start % 0x1000;
	d->exit_entry_end = d->exit_entry_end % 2 ? d->exit_entry_start + 1 +
		d->exit_entry_end % VMSTACK_VM_EXIT_ENTRY_MAX : 0;
	if (!(d->flags & VMSTACK_VM_F_JIT_EXIT))
		d->exit_entry_end = 0;
}

UNIT_TEST(desc3_prog_takes_what_3_6_took)
{
	static struct vmstack_vm_desc4 d4;
	struct vmstack_vm_desc d;
	unsigned int i, taken = 0, longest = 0, consts = 0, vms_long = 0;
	const char *err;
	int at;

	for (i = 0; i < 20000; i++) {
		random_desc(&d);
		if (vmstack_desc3_check(&d))
			continue;
		taken++;
		err = vmstack_desc3_prog(&d, &d4);
		/*
		 * A VM state frame, a continuation's PC and an identity's tag
		 * (past 3.6) cost 11, 4 and 4 instructions more: they may make
		 * the longest programs too long, refused so.
		 */
		if (err && (d.flags & (VMSTACK_VM_F_VM_STATE | VMSTACK_VM_F_CONT_PC |
				       VMSTACK_VM_F_IDENT_TAG)) &&
		    strstr(err, "too long")) {
			vms_long++;
			continue;
		}
		if (!err)
			err = vmstack_vm_desc4_check_insn(&d4, &at);
		CHECK(err == NULL);
		if (err) {
			fprintf(stderr, "  flags %#x: %s\n", d.flags, err);
			break;
		}
		longest = d4.prog_len > longest ? d4.prog_len : longest;
		consts = d4.nr_consts > consts ? d4.nr_consts : consts;
	}
	CHECK(taken > 10000);
	fprintf(stderr, "  %u descriptors, the longest program %u instructions, %u constants; %u with a VM state frame, a continuation's PC or a tag too long\n",
		taken, longest, consts, vms_long);
	CHECK(vms_long < taken / 100);
	/*
	 * The most code: every flag of 3.6 that makes some (state in the AR
	 * with a leaf's, both registers, tagged links with hidden, bottom and
	 * continuation frames, each check), and every mask or value in a
	 * constant. (With the flags past 3.6 the longest program is
	 * LuaJIT's, below; every one of them too makes it too long.)
	 */
	memset(&d, 0, sizeof(d));
	d.code_start = 0x400000;
	d.code_end = 0x500000;
	d.flags = VMSTACK_VM_F_ALL & ~(VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_KIND_WORD |
				       VMSTACK_VM_F_NO_BUILTINS | VMSTACK_VM_F_FUNC_IDENT |
				       VMSTACK_VM_F_IDENT_TAG | VMSTACK_VM_F_VM_STATE |
				       VMSTACK_VM_F_CONT_PC);
	d.state_from = VMSTACK_VM_STATE_AR;
	d.link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d.top_reg = VMSTACK_VM_REG_RDX;
	d.pc_reg = VMSTACK_VM_REG_RBX;
	d.jit_reg = VMSTACK_VM_REG_R14;
	d.ar_leaf_off = 8;
	d.func_mask = 0x7fffffffffffULL;
	d.pc_mask = d.pc_val = 0x80000000U;
	d.hide_types = d.bottom_types = 0x80000003U;
	d.type_mask = 31;
	d.cont_type = 2;
	d.cont_val = 0x123456789abULL;
	d.slot = 8;
	d.insn_bits = 8;
	d.stack_max = 1U << 30;
	d.max_frames = 100;
	d.ar_chain_max = d.jit_near_max = d.jit_areas_max = 4;
	d.exit_anchor_off = 240;
	d.exit_state = ~3;
	d.exit_entry_start = 0x4ff000;
	d.exit_entry_end = 0x4ff00f;
	d.pc_unit = 4;
	d.kind_max = 100;
	err = vmstack_desc3_prog(&d, &d4);
	if (!err)
		err = vmstack_vm_desc4_check_insn(&d4, &at);
	CHECK(err == NULL);
	fprintf(stderr, "  every flag: %u instructions, %u constants\n", d4.prog_len, d4.nr_consts);
	/* What 3.6's check refused, the translator refuses with its message. */
	d.max_frames = 0;
	CHECK(vmstack_desc3_prog(&d, &d4) && !strcmp(vmstack_desc3_prog(&d, &d4),
						  vmstack_desc3_check(&d)));
}
