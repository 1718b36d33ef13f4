/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How big the recorder's rings are by default and how often it drains
 * them, both from how fast a ring can fill: the rate asked for times the
 * largest record a sample can take at the depth asked for (the record
 * layout of linux/vmstack.h). Pure arithmetic, so the unit tests cover
 * the policy; session.c gathers the machine's facts.
 */
#ifndef VMSTACK_RECORD_RING_SIZE_H
#define VMSTACK_RECORD_RING_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* A ring holds this many drain periods of the fastest filling. */
#define RING_MARGIN 4
/*
 * The drain period's bounds: no wake-up more often than 100 times a
 * second; none rarer than 10 times. Rings are sized for the shortest.
 */
#define RING_DRAIN_MIN_MS 10
#define RING_DRAIN_MAX_MS 100
/*
 * What default rings may lock over all CPUs, RLIMIT_MEMLOCK or not: a
 * profiler's buffers should not take hundreds of MiB of a large machine
 * unasked (perf's default is 516 KiB a CPU); --ring-pages may.
 */
#define RING_DEFAULT_MAX_BYTES (64ULL << 20)

struct ring_size_in {
	unsigned int freq;		/* samples per second on each CPU */
	unsigned int max_depth;		/* words per stack (--max-depth) */
	int kernel;			/* kernel stacks too, not user only */
	unsigned int nr_rings;		/* the module makes one per possible CPU */
	size_t page_size;
	uint64_t memlock;		/* bytes the rings may lock; UINT64_MAX: any */
};

struct ring_size {
	unsigned int pages;	/* data pages per CPU, what to ask for */
	unsigned int need;	/* what the rate and depth need, before RLIMIT_MEMLOCK */
};

/* The largest record a sample takes: its header and both stacks full. */
size_t ring_record_max(unsigned int max_depth, int kernel);
/*
 * The default: RING_MARGIN times what a CPU writes in RING_DRAIN_MIN_MS
 * at worst, a power of 2, at least the module's default (rates that need
 * less keep what they always had), at most VMSTACK_MAX_RING_PAGES, and
 * no more than @in->memlock holds over every ring (each has a control
 * page too), but never below VMSTACK_MIN_RING_PAGES.
 */
struct ring_size ring_size_default(const struct ring_size_in *in);
/*
 * How often to drain rings of @pages pages at @freq: a quarter of the
 * time one takes to fill with records of @record_max bytes, within
 * RING_DRAIN_MIN_MS..RING_DRAIN_MAX_MS.
 */
unsigned int ring_drain_ms(unsigned int pages, size_t page_size, unsigned int freq,
			   size_t record_max);

#endif
