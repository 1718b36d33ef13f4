// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-raw-threads: each thread's samples in a raw recording, for tests
 * that compare them with the thread's own CPU clock.
 *   vmstack-raw-threads FILE.raw
 * prints "all COUNT FIRST_NS LAST_NS" (the recording's earliest and latest
 * samples, CLOCK_MONOTONIC), then "TID COUNT FIRST_NS LAST_NS" a thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "raw_file.h"

struct tid_count {
	uint32_t tid;
	uint64_t n, first, last;
};

static int by_tid(const void *a, const void *b)
{
	const struct tid_count *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void seen(struct tid_count *c, uint64_t t)
{
	if (!c->n || t < c->first)
		c->first = t;
	if (!c->n || t > c->last)
		c->last = t;
	c->n++;
}

int main(int argc, char **argv)
{
	struct tid_count all = { 0 }, *tids = NULL;
	size_t ntids = 0, off, i;
	struct vmstack_raw raw;
	char msg[256];

	if (argc != 2) {
		fprintf(stderr, "usage: vmstack-raw-threads FILE.raw\n");
		return 2;
	}
	if (vmstack_raw_read(argv[1], &raw, msg, sizeof(msg))) {
		fprintf(stderr, "vmstack-raw-threads: %s: %s\n", argv[1], msg);
		return 1;
	}
	for (off = 0; off < raw.records.len;) {
		const struct vmstack_rec_sample *rec = (const void *)(raw.records.data + off);

		off += rec->hdr.size;
		seen(&all, rec->time_ns);
		/* Few threads: a linear search is plenty. */
		for (i = 0; i < ntids && tids[i].tid != rec->tid; i++)
			;
		if (i == ntids) {
			tids = realloc(tids, ++ntids * sizeof(*tids));
			if (!tids) {
				perror("vmstack-raw-threads");
				return 1;
			}
			tids[i] = (struct tid_count){ .tid = rec->tid };
		}
		seen(&tids[i], rec->time_ns);
	}
	qsort(tids, ntids, sizeof(*tids), by_tid);
	printf("all %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", all.n, all.first, all.last);
	for (i = 0; i < ntids; i++)
		printf("%" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		       tids[i].tid, tids[i].n, tids[i].first, tids[i].last);
	free(tids);
	vmstack_raw_free(&raw);
	return 0;
}
