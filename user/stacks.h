/* SPDX-License-Identifier: GPL-2.0 */
/* Distinct raw stacks and their counts, as samples arrive. */
#ifndef VMSTACK_STACKS_H
#define VMSTACK_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

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
};

void vmstack_stacks_init(struct vmstack_stacks *st, int per_thread);
/* Count @rec's stack: 1 if it is a new one, else 0. */
int vmstack_stacks_add(struct vmstack_stacks *st,
		       const struct vmstack_rec_sample *rec);
void vmstack_stacks_free(struct vmstack_stacks *st);

#endif
