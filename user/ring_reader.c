// SPDX-License-Identifier: GPL-2.0
#include "ring_reader.h"

void vmstack_ring_views(void *area, unsigned nr_cpus, unsigned ring_pages,
			size_t page_size, struct vmstack_ring_view *views)
{
	size_t stride = (size_t)(ring_pages + 1) * page_size;
	unsigned cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		uint8_t *base = (uint8_t *)area + cpu * stride;

		views[cpu].ctl = (struct vmstack_ring_ctl *)base;
		views[cpu].data = base + page_size;
		views[cpu].size = (uint64_t)ring_pages * page_size;
	}
}

uint64_t vmstack_ring_used(const struct vmstack_ring_view *r)
{
	return __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE) - r->ctl->tail;
}

long vmstack_ring_drain(struct vmstack_ring_view *r, vmstack_sample_fn fn,
			void *arg)
{
	/* Pairs with the kernel's release store of head. */
	uint64_t head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->ctl->tail;
	const struct vmstack_rec_sample *rec;
	const struct vmstack_rec_hdr *hdr;
	uint64_t off, left;
	long n = 0;

	if (head < tail || head - tail > r->size)
		return -1;
	while (tail < head) {
		off = tail & (r->size - 1);
		left = head - tail;
		hdr = (const struct vmstack_rec_hdr *)(r->data + off);
		if (left < sizeof(*hdr) || hdr->size < sizeof(*hdr) ||
		    hdr->size % 8 || hdr->size > left ||
		    hdr->size > r->size - off)
			return -1;
		if (hdr->type == VMSTACK_REC_SAMPLE || hdr->type == VMSTACK_REC_SWITCH) {
			rec = (const struct vmstack_rec_sample *)hdr;
			if (hdr->size < sizeof(*rec) ||
			    hdr->size != sizeof(*rec) +
			    ((uint64_t)rec->nr_kernel + rec->nr_user) * 8 +
			    (hdr->type == VMSTACK_REC_SWITCH ?
			     sizeof(struct vmstack_rec_switch_tail) : 0))
				return -1;
			fn(rec, arg);
			n++;
		} else if (hdr->type != VMSTACK_REC_PAD) {
			return -1;
		}
		tail += hdr->size;
	}
	/* We are done with the data: the kernel may reuse it. */
	__atomic_store_n(&r->ctl->tail, tail, __ATOMIC_RELEASE);
	return n;
}
