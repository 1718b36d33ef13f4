// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's default ring size and drain period (record/ring_size.h)
 * over rates, depths, CPU counts and RLIMIT_MEMLOCK: known answers, and
 * the promise behind them, that a ring holds RING_MARGIN drain periods of
 * the worst a CPU can write.
 */
#include <linux/vmstack.h>

#include "record/ring_size.h"
#include "unit.h"

#define PAGE 4096
#define NO_LIMIT UINT64_MAX
#define MIB (1ULL << 20)

/* Pages for @freq and @depth, kernel stacks too, on @cpus CPUs. */
static struct ring_size sized(unsigned int freq, unsigned int depth, int kernel,
			      unsigned int cpus, uint64_t memlock)
{
	struct ring_size_in in = { .freq = freq, .max_depth = depth, .kernel = kernel,
				   .nr_rings = cpus, .page_size = PAGE, .memlock = memlock };

	return ring_size_default(&in);
}

UNIT_TEST(ring_record_max_is_the_uapi_layout)
{
	CHECK(sizeof(struct vmstack_rec_sample) == 32);
	CHECK(ring_record_max(256, 1) == 32 + 2 * 256 * 8);
	CHECK(ring_record_max(256, 0) == 32 + 256 * 8);
	CHECK(ring_record_max(VMSTACK_MAX_DEPTH, 1) == 8224);
}

UNIT_TEST(ring_size_known_answers)
{
	static const struct {
		unsigned int freq, depth;
		int kernel;
		unsigned int cpus;
		uint64_t memlock;
		unsigned int pages, need;
	} cases[] = {
		/* The old default stays where it was enough. */
		{ 999, 128, 1, 2, NO_LIMIT, 64, 32 },
		{ 999, 256, 1, 2, NO_LIMIT, 64, 64 },
		{ 99, 256, 1, 2, NO_LIMIT, 64, 4 },
		{ 19, 256, 1, 96, NO_LIMIT, 64, 4 },
		/* Deep stacks, higher rates: 4 x 10 ms of the worst, a power of 2. */
		{ 999, 512, 1, 2, NO_LIMIT, 128, 128 },
		{ 4000, 128, 1, 2, NO_LIMIT, 128, 128 },
		{ 4000, 256, 1, 2, NO_LIMIT, 256, 256 },
		{ 4000, 512, 1, 2, NO_LIMIT, 512, 512 },
		/* 96 CPUs: RING_DEFAULT_MAX_BYTES holds them (96 x 129 x 4 KiB = 48 MiB). */
		{ 4000, 256, 1, 96, NO_LIMIT, 128, 256 },
		{ 4000, 512, 1, 96, NO_LIMIT, 128, 512 },
		/* User stacks only: half the record. */
		{ 4000, 256, 0, 2, NO_LIMIT, 128, 128 },
		/* The module's cap. */
		{ VMSTACK_MAX_FREQ, VMSTACK_MAX_DEPTH, 1, 2, NO_LIMIT, 4096, 4096 },
		/* RLIMIT_MEMLOCK 8 MiB: 2 CPUs fit; 96 CPUs hold 16 pages (96 x 17 x 4 KiB). */
		{ 4000, 512, 1, 2, 8 * MIB, 512, 512 },
		{ 4000, 256, 1, 96, 8 * MIB, 16, 256 },
		{ 999, 256, 1, 96, 8 * MIB, 16, 64 },
		/* The old 64 KiB limit: the smallest rings, which the module may refuse. */
		{ 999, 256, 1, 2, 64 << 10, 4, 64 },
		{ 999, 256, 1, 96, 64 << 10, VMSTACK_MIN_RING_PAGES, 64 },
	};
	struct ring_size rs;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rs = sized(cases[i].freq, cases[i].depth, cases[i].kernel, cases[i].cpus,
			   cases[i].memlock);
		if (rs.pages != cases[i].pages || rs.need != cases[i].need)
			fprintf(stderr, "  case %u: pages %u need %u, not %u %u\n", i, rs.pages,
				rs.need, cases[i].pages, cases[i].need);
		CHECK(rs.pages == cases[i].pages);
		CHECK(rs.need == cases[i].need);
	}
}

UNIT_TEST(ring_drain_period_known_answers)
{
	/* 4 kHz, 256 frames each: the old 64 pages fill in 16 ms. */
	CHECK(ring_drain_ms(64, PAGE, 4000, ring_record_max(256, 1)) == RING_DRAIN_MIN_MS);
	CHECK(ring_drain_ms(256, PAGE, 4000, ring_record_max(256, 1)) == 15);
	CHECK(ring_drain_ms(512, PAGE, 4000, ring_record_max(256, 1)) == 31);
	CHECK(ring_drain_ms(64, PAGE, 999, ring_record_max(256, 1)) == 15);
	/* Low rates wake rarely. */
	CHECK(ring_drain_ms(64, PAGE, 99, ring_record_max(256, 1)) == RING_DRAIN_MAX_MS);
	CHECK(ring_drain_ms(64, PAGE, 1, ring_record_max(1, 0)) == RING_DRAIN_MAX_MS);
}

/*
 * Over every mix: the default is a power of 2 in the module's range, at
 * least the module's default; unless RLIMIT_MEMLOCK, RING_DEFAULT_MAX_BYTES or the module's cap
 * holds it, the ring takes RING_MARGIN drain periods of the worst; and
 * the rings fit RLIMIT_MEMLOCK unless they are the smallest already.
 */
UNIT_TEST(ring_size_holds_margin_periods)
{
	static const unsigned int freqs[] = { 1, 19, 99, 999, 4000, 10000, 25000, VMSTACK_MAX_FREQ };
	static const unsigned int depths[] = { 1, 64, 128, 256, 512 };
	static const unsigned int cpus[] = { 1, 2, 96, 1024 };
	static const uint64_t limits[] = { NO_LIMIT, 64 << 10, 8 * MIB, 64 * MIB, 1ULL << 40 };
	unsigned int f, d, k, c, l, ms, want;
	uint64_t worst, locked, cap;
	struct ring_size rs;
	size_t rec;

	for (f = 0; f < sizeof(freqs) / sizeof(freqs[0]); f++)
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
	for (k = 0; k < 2; k++)
	for (c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++)
	for (l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
		rs = sized(freqs[f], depths[d], (int)k, cpus[c], limits[l]);
		rec = ring_record_max(depths[d], (int)k);
		ms = ring_drain_ms(rs.pages, PAGE, freqs[f], rec);
		worst = (uint64_t)freqs[f] * rec * ms / 1000;
		locked = (uint64_t)cpus[c] * (rs.pages + 1) * PAGE;
		CHECK(!(rs.pages & (rs.pages - 1)) && !(rs.need & (rs.need - 1)));
		CHECK(rs.pages >= VMSTACK_MIN_RING_PAGES && rs.pages <= VMSTACK_MAX_RING_PAGES);
		CHECK(rs.need >= VMSTACK_MIN_RING_PAGES && rs.need <= VMSTACK_MAX_RING_PAGES);
		CHECK(ms >= RING_DRAIN_MIN_MS && ms <= RING_DRAIN_MAX_MS);
		cap = limits[l] < RING_DEFAULT_MAX_BYTES ? limits[l] : RING_DEFAULT_MAX_BYTES;
		want = rs.need > VMSTACK_DEFAULT_RING_PAGES ? rs.need : VMSTACK_DEFAULT_RING_PAGES;
		if (limits[l] == NO_LIMIT && (uint64_t)cpus[c] * (want + 1) * PAGE <= cap)
			CHECK(rs.pages >= VMSTACK_DEFAULT_RING_PAGES && rs.pages >= rs.need);
		if (rs.pages >= rs.need && rs.need < VMSTACK_MAX_RING_PAGES)
			CHECK((uint64_t)rs.pages * PAGE >= RING_MARGIN * worst);
		CHECK(locked <= cap || rs.pages == VMSTACK_MIN_RING_PAGES);
		/* Held by the limit or the cap only where the next size up would not fit. */
		if (rs.pages < rs.need || rs.pages < VMSTACK_DEFAULT_RING_PAGES)
			CHECK((uint64_t)cpus[c] * (2 * rs.pages + 1) * PAGE > cap);
	}
}
