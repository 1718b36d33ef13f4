// SPDX-License-Identifier: GPL-2.0
#include "abi.h"

/* A descriptor that means something else to a module without 3.1. */
static bool needs_3_1(const struct vmstack_vm_desc *d)
{
	return (d->flags & VMSTACK_VM_F_REF32) || d->jit_anchor_ptr;
}

/*
 * A descriptor that a module without 3.2 would refuse or misread: a
 * thread's own state, the top in the AR, code objects as identities.
 */
static bool needs_3_2(const struct vmstack_vm_desc *d)
{
	return d->state_from == VMSTACK_VM_STATE_THREAD ||
	       (d->flags & (VMSTACK_VM_F_TOP_AR | VMSTACK_VM_F_FUNC_IDENT |
			    VMSTACK_VM_F_KIND_WORD));
}

/*
 * What each ABI minor added to the VM descriptor: its size, its flags,
 * and whether a descriptor that uses them can do without (the flag is
 * dropped) or not (it is not sent).
 */
static const struct {
	uint32_t minor;
	size_t size;
	uint32_t flags;
	const char *what;	/* what a module without it does not do */
	bool (*needed)(const struct vmstack_vm_desc *d);
} desc_minors[] = {
	/* 3.0: everything up to jit_near_max, every flag up to F_JIT_NEAR. */
	{ 0, VMSTACK_VM_DESC_SIZE_3_0, (VMSTACK_VM_F_JIT_NEAR << 1) - 1, NULL, NULL },
	{ 1, VMSTACK_VM_DESC_SIZE_3_1, VMSTACK_VM_F_REF32,
	  "the module's ABI is older than 3.1: it cannot read 32-bit VM references "
	  "(LuaJIT without GC64)", needs_3_1 },
	{ 2, VMSTACK_VM_DESC_SIZE_3_2,
	  VMSTACK_VM_F_TOP_AR | VMSTACK_VM_F_FUNC_IDENT | VMSTACK_VM_F_KIND_WORD,
	  "the module's ABI is older than 3.2: it cannot find a thread's own VM state "
	  "or code objects (CPython 3.11)", needs_3_2 },
	{ 6, VMSTACK_VM_DESC_SIZE_3_6,
	  VMSTACK_VM_F_FUNC_CHECK | VMSTACK_VM_F_PC_CHECK | VMSTACK_VM_F_BUILTIN_KIND,
	  "the module's ABI is older than 3.6: it does not check a VM frame's function "
	  "(a frame caught being set up or torn down may show a builtin never called)",
	  NULL },
};

size_t vmstack_abi_fit_desc(struct vmstack_vm_desc *d, uint32_t minor,
			    const char **left_out)
{
	size_t len = sizeof(*d), i;
	uint32_t flags = 0;

	*left_out = NULL;
	for (i = 0; i < sizeof(desc_minors) / sizeof(desc_minors[0]); i++) {
		if (desc_minors[i].minor <= minor) {
			flags |= desc_minors[i].flags;
			len = desc_minors[i].size;
		} else if (desc_minors[i].needed && desc_minors[i].needed(d)) {
			*left_out = desc_minors[i].what;
			return 0;
		} else if (d->flags & desc_minors[i].flags) {
			*left_out = desc_minors[i].what;
		}
	}
	/* A module as new as we are, or newer, matches every row. */
	d->flags &= flags;
	return len;
}
