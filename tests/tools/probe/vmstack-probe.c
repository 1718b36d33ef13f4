// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe: a test tool that drives vmstack.ko directly, for what
 * vmstack-record cannot do on purpose: hold a session without reading it,
 * open many sessions, and send malformed requests.
 *   vmstack-probe hold PID SECONDS [RING_PAGES [FREQ [drain|nodrain]]]
 *   vmstack-probe sessions PID N
 *   vmstack-probe fuzz SECONDS SEED [PID]
 *   vmstack-probe vmfuzz PID SECONDS SEED
 *   vmstack-probe intrude SECONDS
 *   vmstack-probe forkcheck PID
 *   vmstack-probe hotplug PID CPU
 *   vmstack-probe hostile PID SECONDS
 *   vmstack-probe targets PID OTHER SECONDS
 *   vmstack-probe memcap PID OTHER
 *   vmstack-probe pidns OTHER
 *   vmstack-probe genlwait PID SECONDS
 *   vmstack-probe wake PID SECONDS [RING_PAGES FREQ]
 * "hold" prints the counters and exits 1 unless, for every CPU,
 * taken == written + dropped (and, when draining, read == written).
 * "sessions" opens N sessions at once and exits 0 only if all opened.
 * "intrude" names every descriptor of its own table (and beyond) in every
 * session command for SECONDS: each must be refused.
 * "forkcheck" maps a session's rings, asks MADV_DOFORK (refused) and
 * forks: the child must not have the mapping, and its exit must not stop
 * the parent's sampling.
 * "hotplug" samples PID while CPU goes offline for a second and comes
 * back: samples on CPU must resume and the gap be counted.
 * "hostile" registers a descriptor built to make the handler work as hard
 * as a target can make it (every native frame runs a program that spends
 * the sample's steps and reads) and prints the handler's time beside a
 * plain session's on the same target.
 * "vmfuzz" adds random and mutated ABI 4 descriptors (programs) to
 * sessions on PID and samples it: the module must take exactly those its
 * check (linked here) takes, and cut the VM stacks of the bad ones.
 * "targets" samples PID while OTHER (busy) joins the session, gets rules
 * and a VM, and leaves it again, round after round: the handler meets a
 * process being added and freed. Every step must be answered as the ABI
 * says and OTHER must have been sampled.
 * "memcap" starts tables of the most rows a mapping may have (their
 * memory is taken at the first chunk) without sending the rest: for PID
 * and OTHER in one session (the second is over the session's cap), then
 * one per session until the user's cap refuses one; after closing them
 * all, a new one fits again.
 * "pidns" starts a session in a new PID namespace (its pid 1), has the
 * descriptor passed back out, and adds OTHER and itself, which have no
 * number in the session's namespace: both must be refused.
 * "genlwait" times another generic netlink family's answers (nlctrl's
 * family lookup, which holds the generic netlink mutex) while other
 * processes start and close sessions with the largest rings and upload
 * the largest unwind tables on PID, and alone before that; prints both.
 * "wake" reads a session on PID only when poll() on its file says a ring
 * is filled to its mark: none may be lost, and no wake-up come early.
 *
 * One file per concern in this folder, sharing probe.h: this one holds
 * the dispatch, the session helpers the others share and the plain
 * session commands (hold, sessions); fuzz.c the netlink fuzzer, vmfuzz.c
 * the VM descriptor fuzzer, safety.c intrude, forkcheck, hotplug and
 * hostile, bookkeeping.c targets, memcap, pidns and genlwait, wake.c wake.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

void count_sample(const struct vmstack_rec_sample *rec, void *arg)
{
	(void)rec;
	++*(unsigned long *)arg;
}

/* A session on @pid with its rings mapped (views in v[]). 0 or -1. */
int open_mapped(struct vmstack_nl *nl, struct vmstack_start_req *req,
		struct vmstack_started *s, void **area, size_t *size,
		struct vmstack_ring_view *v)
{
	char msg[256];

	if (vmstack_nl_session_start(nl, req, s, msg, sizeof(msg)) || s->nr_cpus > 64) {
		fprintf(stderr, "probe: %s\n", msg);
		return -1;
	}
	*size = (size_t)s->nr_cpus * (s->ring_pages + 1) * 4096;
	*area = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (*area == MAP_FAILED)
		return -1;
	vmstack_ring_views(*area, s->nr_cpus, s->ring_pages, 4096, v);
	return 0;
}

/* The least descriptor the module takes: one range, a program of no frames. */
void least_desc(struct vmstack_vm_desc4 *d)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->ranges[0].start = 0x1000;
	d->ranges[0].end = 0x2000;
	d->max_frames = 1;
	d->prog_len = 1;
	d->prog[0] = (struct vmstack_vm_insn){ .op = VMSTACK_VM4_EXIT,
					       .imm = VMSTACK_VM4_X_EMPTY };
}

static int hold(int pid, double secs, unsigned pages, unsigned freq, int drain)
{
	struct vmstack_start_req req = { .pid = pid, .freq = freq,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = VMSTACK_MAX_DEPTH, .ring_pages = pages };
	struct vmstack_cpu_counts c[64];
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	unsigned long read = 0, written = 0;
	struct vmstack_nl *nl;
	unsigned i, n;
	char msg[256];
	int bad = 0;
	size_t size;
	double t0;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
		fprintf(stderr, "probe: %s\n", msg);
		return 2;
	}
	if (s.nr_cpus > 64)
		return 2;
	/* Tests that change the target under the session wait for this. */
	printf("started\n");
	fflush(stdout);
	size = (size_t)s.nr_cpus * (s.ring_pages + 1) * 4096;
	area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	if (area == MAP_FAILED)
		return 2;
	vmstack_ring_views(area, s.nr_cpus, s.ring_pages, 4096, v);
	for (t0 = now(); now() - t0 < secs;) {
		usleep(10000);
		for (i = 0; drain && i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_sample, &read);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	for (i = 0; drain && i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	if (vmstack_nl_cpu_stats(nl, s.fd, c, 64, &n, msg, sizeof(msg))) {
		fprintf(stderr, "probe: stats: %s\n", msg);
		return 2;
	}
	for (i = 0; i < n; i++) {
		printf("cpu %u: taken %llu written %llu dropped %llu bad_tail %llu\n", i,
		       (unsigned long long)VMSTACK_CNT(&c[i], TAKEN),
		       (unsigned long long)VMSTACK_CNT(&c[i], WRITTEN),
		       (unsigned long long)VMSTACK_CNT(&c[i], DROPPED),
		       (unsigned long long)VMSTACK_CNT(&c[i], BAD_TAIL));
		bad |= VMSTACK_CNT(&c[i], TAKEN) !=
		       VMSTACK_CNT(&c[i], WRITTEN) + VMSTACK_CNT(&c[i], DROPPED);
		written += VMSTACK_CNT(&c[i], WRITTEN);
	}
	printf("read %lu written %lu\n", read, written);
	if (drain && read != written)
		bad = 1;
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return bad;
}

static int sessions(int pid, int count)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4 };
	struct vmstack_started s;
	struct vmstack_status st;
	struct vmstack_nl *nl;
	int i, *fds = calloc(count, sizeof(int));
	char msg[256];

	if (!fds || vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (i = 0; i < count; i++) {
		if (vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
			printf("session %d refused: %s\n", i + 1, msg);
			break;
		}
		fds[i] = s.fd;
	}
	vmstack_nl_status(nl, &st, msg, sizeof(msg));
	printf("opened %d of %d; open sessions: %u\n", i, count, st.nr_sessions);
	while (i-- > 0)
		close(fds[i]);
	vmstack_nl_close(nl);
	free(fds);
	return st.nr_sessions >= (unsigned)count ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]), atof(argv[3]),
			    argc > 4 ? (unsigned)atoi(argv[4]) : 64,
			    argc > 5 ? (unsigned)atoi(argv[5]) : 999,
			    argc > 6 ? strcmp(argv[6], "nodrain") != 0 : 1);
	if (argc == 5 && !strcmp(argv[1], "vmfuzz"))
		return vmfuzz(atoi(argv[2]), atof(argv[3]), (unsigned)atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "sessions"))
		return sessions(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(atof(argv[2]), (unsigned)atoi(argv[3]),
			    argc > 4 ? atoi(argv[4]) : getpid());
	if (argc == 3 && !strcmp(argv[1], "intrude"))
		return intrude(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "forkcheck"))
		return forkcheck(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "hotplug"))
		return hotplug(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "targets"))
		return targets(atoi(argv[2]), atoi(argv[3]), atof(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "genlwait"))
		return genlwait(atoi(argv[2]), atof(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "pidns"))
		return pidns(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "memcap"))
		return memcap(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "wake"))
		return wake(atoi(argv[2]), atof(argv[3]), argc > 4 ? (unsigned)atoi(argv[4]) : 64,
			    argc > 5 ? (unsigned)atoi(argv[5]) : 999);
	if (argc == 4 && !strcmp(argv[1], "hostile"))
		return hostile(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of vmstack-probe.c\n");
	return 2;
}
