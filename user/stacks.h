/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distinct raw stacks and their counts, as samples arrive. A stack seen
 * the first time is decoded into frames (user/frame.h), once: what looks
 * at new stacks (the recorder naming VM frames while they live) and the
 * naming of the profile read those.
 */
#ifndef VMSTACK_STACKS_H
#define VMSTACK_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

#include "frame.h"

struct vmstack_stack {
	uint64_t count;
	uint32_t pid, tid;	/* tid is 0 unless stacks are kept per thread */
	uint16_t nr_kernel, nr_user;
	uint16_t flags;		/* VMSTACK_SF_* of the first sample */
	uint16_t nframes;
	struct vmstack_frame *frames;	/* decoded from ips, in their order */
	uint64_t ips[];		/* kernel leaf first, then user leaf first */
};

struct vmstack_frame_block;

struct vmstack_stacks {
	struct vmstack_stack **slots;
	size_t nslots, n;
	uint64_t samples;
	int per_thread;
	const struct vmstack_stack *added;	/* the last add's new stack, or NULL */
	/*
	 * The stacks' frames, in blocks of their own: between the stacks,
	 * they would spread those a sample is matched against over five
	 * times the memory (twice the time per sample).
	 */
	struct vmstack_frame_block *frame_blocks;
};

void vmstack_stacks_init(struct vmstack_stacks *st, int per_thread);
/* Count @rec's stack: 1 if it is a new one, else 0. */
int vmstack_stacks_add(struct vmstack_stacks *st,
		       const struct vmstack_rec_sample *rec);
void vmstack_stacks_free(struct vmstack_stacks *st);

#endif
