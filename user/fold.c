// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "fold.h"
#include "output_folded.h"
#include "util.h"

#define NAME_LEN 256

int vmstack_fold_write(const struct vmstack_stacks *st,
		       struct vmstack_symbolizer *sym, const char *comm,
		       int per_thread, FILE *out)
{
	const size_t max = 2 * VMSTACK_MAX_DEPTH + 1;
	const char **frames = xmalloc(max * sizeof(*frames));
	char (*bufs)[NAME_LEN] = xmalloc(max * sizeof(*bufs));
	struct vmstack_folded folded;
	size_t i;
	int err;

	vmstack_folded_init(&folded);
	for (i = 0; i < st->nslots; i++) {
		const struct vmstack_stack *s = st->slots[i];
		int in_kernel, k, n = 0;

		if (!s)
			continue;
		/* In the kernel, the user PC is the return from the syscall. */
		in_kernel = !!(s->flags & VMSTACK_SF_IN_KERNEL);
		if (per_thread)
			snprintf(bufs[n], NAME_LEN, "%s/%u", comm, s->tid);
		else
			snprintf(bufs[n], NAME_LEN, "%s", comm);
		frames[n] = bufs[n];
		n++;
		for (k = s->nr_user - 1; k >= 0; k--, n++)
			frames[n] = vmstack_symbolize_user(sym,
				s->ips[s->nr_kernel + k], k > 0 || in_kernel,
				bufs[n], NAME_LEN);
		for (k = s->nr_kernel - 1; k >= 0; k--, n++)
			frames[n] = vmstack_symbolize_kernel(sym, s->ips[k], k > 0,
							     bufs[n], NAME_LEN);
		vmstack_folded_add(&folded, frames, n, s->count);
	}
	err = vmstack_folded_write(&folded, out);
	vmstack_folded_free(&folded);
	free(frames);
	free(bufs);
	return err;
}
