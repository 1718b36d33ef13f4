// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "fold.h"
#include "output_folded.h"
#include "util.h"

#define NAME_LEN 256

/* The user frames of @s, named, root first; VM words become VM frames. */
static int user_frames(struct vmstack_symbolizer *sym,
		       const struct vmstack_stack *s, int in_kernel,
		       const char **frames, char (*bufs)[NAME_LEN])
{
	const uint64_t *u = s->ips + s->nr_kernel;
	int k, n = 0, lo, hi;

	for (k = 0; k < s->nr_user; k++, n++) {
		if (vmstack_is_vmw(u[k])) {
			frames[n] = vmstack_symbolize_vm(sym, u[k], bufs[n], NAME_LEN);
			/* A script frame's PC word follows it. */
			if (vmstack_vmw_kind(u[k]) == VMSTACK_VMW_SCRIPT)
				k++;
		} else {
			/* In the kernel, the user PC is the return from it. */
			frames[n] = vmstack_symbolize_user(sym, u[k],
							   k > 0 || in_kernel,
							   bufs[n], NAME_LEN);
		}
	}
	for (lo = 0, hi = n - 1; lo < hi; lo++, hi--) {
		const char *t = frames[lo];

		frames[lo] = frames[hi];
		frames[hi] = t;
	}
	return n;
}

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
		in_kernel = !!(s->flags & VMSTACK_SF_IN_KERNEL);
		if (per_thread)
			snprintf(bufs[n], NAME_LEN, "%s/%u", comm, s->tid);
		else
			snprintf(bufs[n], NAME_LEN, "%s", comm);
		frames[n] = bufs[n];
		n++;
		n += user_frames(sym, s, in_kernel, frames + n, bufs + n);
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
