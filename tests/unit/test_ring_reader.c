// SPDX-License-Identifier: GPL-2.0
/*
 * The reader against rings written the way module/ring.c writes them:
 * records, pad records at the wrap, and corrupt input.
 */
#include <stdlib.h>
#include <string.h>

#include "ring_reader.h"
#include "unit.h"

#define PAGE 4096
#define PAGES 4

struct fake {
	uint8_t mem[(PAGES + 1) * PAGE] __attribute__((aligned(PAGE)));
	struct vmstack_ring_view v;
	uint64_t head;
};

static void fake_init(struct fake *f)
{
	memset(f->mem, 0, sizeof(f->mem));
	vmstack_ring_views(f->mem, 1, PAGES, PAGE, &f->v);
	f->head = 0;
}

/* A producer that follows the kernel's rules (pad when it would wrap). */
static int produce(struct fake *f, uint32_t tid, unsigned nips)
{
	uint32_t size = sizeof(struct vmstack_rec_sample) + nips * 8;
	uint64_t off = f->head & (f->v.size - 1), contig = f->v.size - off;
	struct vmstack_rec_sample *rec;
	unsigned i;

	if (f->v.size - (f->head - f->v.ctl->tail) < size + (contig < size ? contig : 0))
		return -1;
	if (contig < size) {
		struct vmstack_rec_hdr *pad = (void *)(f->v.data + off);

		pad->type = VMSTACK_REC_PAD;
		pad->size = (uint32_t)contig;
		f->head += contig;
		off = 0;
	}
	rec = (void *)(f->v.data + off);
	memset(rec, 0, size);
	rec->hdr.type = VMSTACK_REC_SAMPLE;
	rec->hdr.size = size;
	rec->tid = tid;
	rec->nr_user = (uint16_t)nips;
	for (i = 0; i < nips; i++)
		rec->ips[i] = 0x1000 + i;
	f->head += size;
	f->v.ctl->head = f->head;
	return 0;
}

struct seen {
	uint32_t tids[1024];
	int n, bad;
};

static void on_rec(const struct vmstack_rec_sample *rec, void *arg)
{
	struct seen *s = arg;
	unsigned i;

	for (i = 0; i < rec->nr_user; i++)
		if (rec->ips[i] != 0x1000 + i)
			s->bad = 1;
	if (s->n < 1024)
		s->tids[s->n++] = rec->tid;
}

UNIT_TEST(ring_in_order_across_wraps)
{
	static struct fake f;
	struct seen s = { 0 };
	uint32_t next = 0, want = 0;
	int round, i;

	fake_init(&f);
	/* Odd sizes so records land everywhere and pad at every wrap. */
	for (round = 0; round < 50; round++) {
		for (i = 0; i < 7; i++)
			if (!produce(&f, next, 1 + (next * 7) % 60))
				next++;
		s.n = 0;
		CHECK(vmstack_ring_used(&f.v) == f.head - f.v.ctl->tail);
		CHECK(vmstack_ring_drain(&f.v, on_rec, &s) >= 0);
		CHECK(vmstack_ring_used(&f.v) == 0);
		for (i = 0; i < s.n; i++)
			CHECK(s.tids[i] == want++);
	}
	CHECK(!s.bad);
	CHECK(want == next);
	CHECK(next > 100);
	CHECK(f.v.ctl->tail == f.head);
}

UNIT_TEST(ring_rejects_corrupt_records)
{
	static struct fake f;
	struct seen s = { 0 };
	struct vmstack_rec_hdr *h;

	fake_init(&f);
	produce(&f, 1, 3);
	h = (void *)f.v.data;
	h->size = 12;			/* not a multiple of 8 */
	CHECK(vmstack_ring_drain(&f.v, on_rec, &s) == -1);
	h->size = 1 << 20;		/* past head */
	CHECK(vmstack_ring_drain(&f.v, on_rec, &s) == -1);
	h->size = sizeof(struct vmstack_rec_sample) + 3 * 8;
	h->type = 77;			/* unknown type */
	CHECK(vmstack_ring_drain(&f.v, on_rec, &s) == -1);
	h->type = VMSTACK_REC_SAMPLE;
	((struct vmstack_rec_sample *)h)->nr_kernel = 9; /* size mismatch */
	CHECK(vmstack_ring_drain(&f.v, on_rec, &s) == -1);
	f.v.ctl->head = f.v.ctl->tail + f.v.size + 8;	/* impossible head */
	CHECK(vmstack_ring_drain(&f.v, on_rec, &s) == -1);
	CHECK(s.n == 0);
}
