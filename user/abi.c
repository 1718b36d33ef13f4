// SPDX-License-Identifier: GPL-2.0
#include "abi.h"

/* What each ABI minor added to the VM descriptor: its size, its flags. */
static const struct {
	uint32_t minor;
	size_t size;
	uint32_t flags;
	const char *what;	/* what a module without it does not do */
} desc_minors[] = {
	/* 3.0: everything up to jit_near_max, every flag up to F_JIT_NEAR. */
	{ 0, VMSTACK_VM_DESC_SIZE_3_0, VMSTACK_VM_F_ALL, NULL },
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
		} else if (d->flags & desc_minors[i].flags) {
			*left_out = desc_minors[i].what;
		}
	}
	/* A module as new as we are, or newer, matches every row. */
	d->flags &= flags;
	return len;
}
