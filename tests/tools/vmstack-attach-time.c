// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-attach-time: the two ends of the bench's attach-to-first-sample
 * latency, on CLOCK_MONOTONIC (the clock of vmstack's time_ns and of
 * `perf record -k CLOCK_MONOTONIC`), so both profilers are timed alike.
 *   vmstack-attach-time exec FILE CMD [ARGS]   write the time (ns) to FILE,
 *                                              then run CMD in this process
 *   vmstack-attach-time raw FILE.raw           print the earliest sample's
 *                                              time (ns) of a raw recording
 * The time is taken just before exec, so the profiler's own start (loader,
 * libraries) counts against it, as it would for a user.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "raw_file.h"

static int first_sample(const char *path)
{
	struct vmstack_raw raw;
	uint64_t first = UINT64_MAX;
	char msg[256];
	size_t off;

	if (vmstack_raw_read(path, &raw, msg, sizeof(msg))) {
		fprintf(stderr, "vmstack-attach-time: %s: %s\n", path, msg);
		return 1;
	}
	/* Records come ring by ring: the earliest is not always the first. */
	for (off = 0; off < raw.records.len;) {
		const struct vmstack_rec_sample *rec = (const void *)(raw.records.data + off);

		if (rec->time_ns < first)
			first = rec->time_ns;
		off += rec->hdr.size;
	}
	vmstack_raw_free(&raw);
	if (first == UINT64_MAX) {
		fprintf(stderr, "vmstack-attach-time: %s: no samples\n", path);
		return 1;
	}
	printf("%" PRIu64 "\n", first);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec t;
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "raw"))
		return first_sample(argv[2]);
	if (argc < 4 || strcmp(argv[1], "exec")) {
		fprintf(stderr, "usage: vmstack-attach-time exec FILE CMD [ARGS] | raw FILE.raw\n");
		return 2;
	}
	f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	fprintf(f, "%" PRIu64 "\n", (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);
	if (fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "vmstack-attach-time: cannot run %s: %s\n", argv[3], strerror(errno));
	return 127;
}
