// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe wake PID SECONDS [RING_PAGES FREQ]: the session's file
 * wakes its reader when a ring is filled to its mark (ABI 4.2,
 * VMSTACK_RING_WAKEUP_SHIFT), and only then. The reader here has no
 * timer: it sleeps in poll() for up to 2 s at a time, and drains only
 * when woken. The records are large (PID should be deep), so a reader that
 * waited for the timeout would lose most samples. With the smallest rings
 * (4 pages: a mark of 4 KiB) one record and the pad before it can take a
 * drained ring past the mark at once. Fails unless none was dropped for
 * want of room (the handler's time budget drops apart), every wake-up
 * found a ring at or over its mark, and there was at least one.
 */
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probe.h"

/* The fullest of @n rings, in bytes. */
static uint64_t fullest(const struct vmstack_ring_view *v, unsigned int n)
{
	uint64_t most = 0, used;
	unsigned int i;

	for (i = 0; i < n; i++) {
		used = vmstack_ring_used(&v[i]);
		most = used > most ? used : most;
	}
	return most;
}

int wake(int pid, double secs, unsigned int pages, unsigned int freq)
{
	struct vmstack_start_req req = { .pid = pid, .freq = freq,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = VMSTACK_MAX_DEPTH, .ring_pages = pages };
	unsigned long wakes = 0, early = 0, timeouts = 0, read = 0, dropped = 0;
	struct vmstack_cpu_counts c;
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	uint64_t mark, most;
	unsigned int i;
	char msg[256];
	size_t size;
	double t0;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v))
		return 2;
	if (v[0].ctl->abi_minor < 2) {
		fprintf(stderr, "probe: the module is ABI %u.%u: no wake-up by fill\n",
			v[0].ctl->abi_major, v[0].ctl->abi_minor);
		return 1;
	}
	mark = v[0].size >> VMSTACK_RING_WAKEUP_SHIFT;
	for (t0 = now(); now() - t0 < secs;) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };
		int ready = poll(&p, 1, 2000);

		if (ready <= 0) {	/* a timeout, or a signal */
			timeouts += ready == 0;
			continue;
		}
		/* Only we drain: a ring's fill can only have grown since. */
		most = fullest(v, s.nr_cpus);
		wakes++;
		early += most < mark;
		if (most < mark)
			fprintf(stderr,
				"probe: woken with the fullest ring at %llu bytes, under the mark %llu\n",
				(unsigned long long)most, (unsigned long long)mark);
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_sample, &read);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	if (vmstack_nl_session_stats(nl, s.fd, &c, NULL, msg, sizeof(msg))) {
		fprintf(stderr, "probe: stats: %s\n", msg);
		return 2;
	}
	/* The handler's time budget (the debug kernel's deep walks) is not the ring's. */
	dropped = VMSTACK_CNT(&c, DROPPED) - VMSTACK_CNT(&c, THROTTLED);
	printf("ring %llu bytes, mark %llu; %lu samples read, %lu dropped; %lu wake-ups (%lu under the mark), %lu poll timeouts\n",
	       (unsigned long long)v[0].size, (unsigned long long)mark, read, dropped, wakes, early,
	       timeouts);
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return dropped || early || !wakes || !read;
}
