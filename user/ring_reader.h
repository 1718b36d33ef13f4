/* SPDX-License-Identifier: GPL-2.0 */
/* Reader side of the per-CPU rings (layout in linux/vmstack.h). */
#ifndef VMSTACK_RING_READER_H
#define VMSTACK_RING_READER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

struct vmstack_ring_view {
	struct vmstack_ring_ctl *ctl;
	const uint8_t *data;
	uint64_t size;
};

/* Views of nr_cpus rings laid out in @area as the module maps them. */
void vmstack_ring_views(void *area, unsigned nr_cpus, unsigned ring_pages,
			size_t page_size, struct vmstack_ring_view *views);

/*
 * Called for each sample or switch-out (hdr.type SWITCH: the sample is
 * followed by struct vmstack_rec_switch_tail, vmstack_rec_switch_tail()
 * finds it); the record is valid only during the call.
 */
typedef void (*vmstack_sample_fn)(const struct vmstack_rec_sample *rec,
				  void *arg);

static inline const struct vmstack_rec_switch_tail *
vmstack_rec_switch_tail(const struct vmstack_rec_sample *rec)
{
	return (const struct vmstack_rec_switch_tail *)(rec->ips + rec->nr_kernel +
							 rec->nr_user);
}

/* Bytes written and not yet consumed: how full the ring is now. */
uint64_t vmstack_ring_used(const struct vmstack_ring_view *r);

/*
 * Hand every complete record to @fn, then give the space back. Returns the
 * number of samples, or -1 if the ring holds something impossible (the
 * reader then stops trusting that ring).
 */
long vmstack_ring_drain(struct vmstack_ring_view *r, vmstack_sample_fn fn,
			void *arg);

#endif
