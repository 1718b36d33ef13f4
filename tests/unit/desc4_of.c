// SPDX-License-Identifier: GPL-2.0
/* ABI 3 descriptors of the walk tests as ABI 4 programs (desc4_of.h). */
#include <stdio.h>

#include "desc4_of.h"
#include "unit.h"
#include "vm/desc3_prog.h"
#include "vm_prog_check.h"

const struct vmstack_vm_desc4 *desc4_of(const struct vmstack_vm_desc *d, unsigned int n)
{
	static struct vmstack_vm_desc4 d4[VMSTACK_VM_MAX];
	const char *err;
	unsigned int i;
	int at = -1;

	for (i = 0; i < n && i < VMSTACK_VM_MAX; i++) {
		err = vmstack_desc3_prog(&d[i], &d4[i]);
		if (!err)
			err = vmstack_vm_desc4_check_insn(&d4[i], &at);
		CHECK(err == NULL);
		if (!err)
			continue;
		fprintf(stderr, "  descriptor %u: instruction %d: %s\n", i, at, err);
		d4[i].prog_len = 1;
		d4[i].prog[0] = (struct vmstack_vm_insn){ .op = VMSTACK_VM4_EXIT,
							  .imm = VMSTACK_VM4_X_EMPTY };
	}
	return d4;
}
