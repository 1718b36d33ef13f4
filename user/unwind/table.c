// SPDX-License-Identifier: GPL-2.0
/*
 * A file's unwind rows: made by a reader (eh_frame.c, or libdw_frames.c
 * for what that does not know) through reduce.c, and sliced per mapping
 * for the module.
 */
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi.h"
#include "util.h"

int vmstack_cfi_build(Elf *elf, struct vmstack_cfi_table *t)
{
	return vmstack_cfi_build_direct(elf, t) ? vmstack_cfi_build_libdw(elf, t) : 0;
}

size_t vmstack_cfi_slice(const struct vmstack_cfi_table *t, uint64_t lo,
			 uint64_t hi, struct vmstack_uw_row **out)
{
	struct vmstack_uw_row fp = { .cfa = VMSTACK_UW_FP };
	size_t i = 0, k = 0;

	*out = xmalloc((t->n + 1) * sizeof(**out));
	/* The row in force at lo starts the slice, at offset 0. */
	while (i + 1 < t->n && t->rows[i + 1].vaddr <= lo)
		i++;
	if (!t->n || t->rows[i].vaddr > lo)
		(*out)[k++] = fp;
	for (; i < t->n && t->rows[i].vaddr < hi; i++) {
		(*out)[k] = t->rows[i].rule;
		(*out)[k].start = t->rows[i].vaddr > lo ?
				  (uint32_t)(t->rows[i].vaddr - lo) : 0;
		if (k && (*out)[k].start == (*out)[k - 1].start)
			(*out)[k - 1] = (*out)[k];
		else
			k++;
	}
	return k;
}

void vmstack_cfi_free(struct vmstack_cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
