// SPDX-License-Identifier: GPL-2.0
/* The rings' default size and drain period (ring_size.h). */
#include <linux/vmstack.h>

#include "ring_size.h"

size_t ring_record_max(unsigned int max_depth, int kernel)
{
	return sizeof(struct vmstack_rec_sample) +
	       (size_t)max_depth * (kernel ? 2 : 1) * sizeof(__u64);
}

/* Bytes a CPU writes in @ms at worst. */
static uint64_t worst_bytes(unsigned int freq, size_t record_max, unsigned int ms)
{
	return (uint64_t)freq * record_max * ms / 1000;
}

/* The rings' locked memory: a control page and @pages data pages each. */
static uint64_t locked_bytes(const struct ring_size_in *in, unsigned int pages)
{
	return (uint64_t)in->nr_rings * (pages + 1) * in->page_size;
}

struct ring_size ring_size_default(const struct ring_size_in *in)
{
	uint64_t bytes = RING_MARGIN * worst_bytes(in->freq, ring_record_max(in->max_depth, in->kernel),
						   RING_DRAIN_MIN_MS);
	uint64_t cap = in->memlock < RING_DEFAULT_MAX_BYTES ? in->memlock : RING_DEFAULT_MAX_BYTES;
	struct ring_size rs = { .need = VMSTACK_MIN_RING_PAGES };

	while (rs.need < VMSTACK_MAX_RING_PAGES && (uint64_t)rs.need * in->page_size < bytes)
		rs.need *= 2;
	rs.pages = rs.need > VMSTACK_DEFAULT_RING_PAGES ? rs.need : VMSTACK_DEFAULT_RING_PAGES;
	/*
	 * The module refuses rings past RLIMIT_MEMLOCK: smaller ones that
	 * start beat none. The user's other locked memory is not known here;
	 * if it leaves too little, the module says so. Nor more than
	 * RING_DEFAULT_MAX_BYTES in all.
	 */
	while (rs.pages > VMSTACK_MIN_RING_PAGES && locked_bytes(in, rs.pages) > cap)
		rs.pages /= 2;
	return rs;
}

unsigned int ring_drain_ms(unsigned int pages, size_t page_size, unsigned int freq,
			   size_t record_max)
{
	uint64_t fill = worst_bytes(freq, record_max, 1000);
	uint64_t ms = fill ? (uint64_t)pages * page_size * 1000 / (RING_MARGIN * fill) : RING_DRAIN_MAX_MS;

	return ms < RING_DRAIN_MIN_MS ? RING_DRAIN_MIN_MS :
	       ms > RING_DRAIN_MAX_MS ? RING_DRAIN_MAX_MS : (unsigned int)ms;
}
