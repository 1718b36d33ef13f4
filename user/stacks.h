/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distinct raw stacks and their counts, as samples arrive. A stack is kept
 * as its words only, which is what a sample is matched against; its
 * frames (user/frame.h) are read from them through frame.c's one decoder
 * (vmstack_stack_frames) by what reads them: the recorder looking at a
 * new stack (naming its VM frames while they live) and the profile's
 * naming. Kept decoded beside the words, frames took 24 bytes each to a
 * word's 8 (vmstack-report on 15,918 stacks of 25 frames: 29 MB, not 19)
 * to save the recorder a second walk: about 60 ns a stack of 25 frames.
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
	uint64_t ips[];		/* kernel leaf first, then user leaf first */
};

struct vmstack_stacks {
	struct vmstack_stack **slots;
	size_t nslots, n;
	uint64_t samples;
	int per_thread;
	const struct vmstack_stack *added;	/* the last add's new stack, or NULL */
};

void vmstack_stacks_init(struct vmstack_stacks *st, int per_thread);
/* Count @rec's stack once: 1 if it is a new one, else 0. */
int vmstack_stacks_add(struct vmstack_stacks *st,
		       const struct vmstack_rec_sample *rec);
/*
 * Add @weight to @rec's stack (an off-CPU wait's microseconds; 0 keeps
 * a stack whose weight is not known yet): 1 if it is a new one, else 0.
 * samples counts the adds of a weight.
 */
int vmstack_stacks_add_weight(struct vmstack_stacks *st,
			      const struct vmstack_rec_sample *rec, uint64_t weight);
void vmstack_stacks_free(struct vmstack_stacks *st);

/* Start @it on @s's frames: leaf first, kernel ones, then user ones. */
static inline void vmstack_stack_frames(const struct vmstack_stack *s,
					struct vmstack_frame_iter *it)
{
	vmstack_frames_start(it, s->ips, s->nr_kernel, s->nr_user, s->flags);
}

#endif
