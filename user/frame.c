// SPDX-License-Identifier: GPL-2.0
#include <linux/vmstack.h>

#include "frame.h"

void vmstack_frames_start(struct vmstack_frame_iter *it, const uint64_t *ips,
			  unsigned int nr_kernel, unsigned int nr_user,
			  uint16_t flags)
{
	it->ips = ips;
	it->nr_kernel = nr_kernel;
	it->n = nr_kernel + nr_user;
	it->i = 0;
	it->in_kernel = !!(flags & VMSTACK_SF_IN_KERNEL);
}

static const enum vmstack_frame_kind vmw_kinds[8] = {
	[VMSTACK_VMW_SCRIPT] = VMSTACK_FRAME_SCRIPT,
	[VMSTACK_VMW_BUILTIN] = VMSTACK_FRAME_BUILTIN,
	[VMSTACK_VMW_BROKEN] = VMSTACK_FRAME_CUT,
	[VMSTACK_VMW_JIT] = VMSTACK_FRAME_JIT,
};

int vmstack_frames_next(struct vmstack_frame_iter *it, struct vmstack_frame *f)
{
	unsigned int i = it->i;
	uint64_t w;

	if (i >= it->n)
		return 0;
	w = it->ips[i];
	*f = (struct vmstack_frame){ .value = w };
	it->i++;
	if (i < it->nr_kernel) {
		f->kind = VMSTACK_FRAME_KERNEL;
		f->ret = i > 0;
		return 1;
	}
	if (vmstack_is_vmw(w) && vmw_kinds[vmstack_vmw_kind(w)]) {
		f->kind = vmw_kinds[vmstack_vmw_kind(w)];
		f->word = w;
		f->value = vmstack_vmw_value(w);
		f->vm = vmstack_vmw_vm(w);
		/* A script frame's PC word follows it. */
		if (f->kind == VMSTACK_FRAME_SCRIPT && it->i < it->n)
			f->pc = it->ips[it->i++];
		return 1;
	}
	/*
	 * A user address. The first is the sampled PC unless the sample hit
	 * the kernel: then it is where the kernel returns to, as are all
	 * the others.
	 */
	f->kind = VMSTACK_FRAME_NATIVE;
	f->ret = i > it->nr_kernel || it->in_kernel;
	return 1;
}

int vmstack_frame_is_vm(enum vmstack_frame_kind kind)
{
	return kind == VMSTACK_FRAME_SCRIPT || kind == VMSTACK_FRAME_BUILTIN ||
	       kind == VMSTACK_FRAME_JIT || kind == VMSTACK_FRAME_CUT;
}
