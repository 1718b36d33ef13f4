// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe intrude, forkcheck, hotplug, hostile: what issue-by-issue
 * safety promises need (another's descriptors, fork, CPU hotplug, the
 * most work a target can ask of the handler).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "vm_prog_check.h"

/* Every session command, naming descriptors of our own table: all refused. */
int intrude(double secs)
{
	static struct vmstack_vm_desc4 d;
	struct vmstack_uw_row row = { .cfa = VMSTACK_UW_CFA_RSP, .cfa_off = 16 };
	unsigned long tries = 0, taken = 0;
	struct vmstack_cpu_counts c[64];
	struct vmstack_nl *nl;
	unsigned int n;
	uint64_t bytes;
	char msg[256];
	double t0;
	int fd;

	least_desc(&d);
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (t0 = now(); now() - t0 < secs;) {
		for (fd = 0; fd < 1024; fd++, tries += 8) {
			taken += !vmstack_nl_session_stop(nl, fd, msg, sizeof(msg));
			taken += !vmstack_nl_session_resume(nl, fd, msg, sizeof(msg));
			taken += !vmstack_nl_session_stats(nl, fd, c, NULL, msg, sizeof(msg));
			taken += !vmstack_nl_cpu_stats(nl, fd, c, 64, &n, msg, sizeof(msg));
			taken += !vmstack_nl_unwind_add(nl, fd, 0, 0, 0x400000, 0x401000, &row, 1,
							&bytes, msg, sizeof(msg));
			taken += !vmstack_nl_vm_add(nl, fd, 0, &d, sizeof(d), msg, sizeof(msg));
			taken += !vmstack_nl_target_add(nl, fd, (uint32_t)getpid(), msg,
							sizeof(msg));
			taken += !vmstack_nl_target_del(nl, fd, (uint32_t)getpid(), msg,
							sizeof(msg));
		}
	}
	printf("intrude: %lu requests naming descriptors 0..1023, %lu taken; last refusal: %s\n",
	       tries, taken, msg);
	vmstack_nl_close(nl);
	return taken != 0;
}

static uint64_t written_now(struct vmstack_nl *nl, int fd)
{
	struct vmstack_cpu_counts c;
	char msg[256];

	return vmstack_nl_session_stats(nl, fd, &c, NULL, msg, sizeof(msg)) ? 0 :
	       VMSTACK_CNT(&c, WRITTEN);
}

/* A forked child: no ring mapping, and its exit stops nothing. */
int forkcheck(int pid)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4 };
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	uint64_t before, after;
	int status, bad = 0, dofork;
	unsigned long read = 0;
	unsigned int i;
	char msg[256];
	pid_t child;
	size_t size;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v))
		return 2;
	/* MADV_DOFORK must not make the mapping inheritable after all. */
	dofork = !madvise(area, size, MADV_DOFORK);
	if (dofork)
		printf("forkcheck: MADV_DOFORK accepted on the rings\n");
	child = fork();
	if (!child) {
		char line[512];
		FILE *f = fopen("/proc/self/maps", "r");
		int found = 0;

		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, "[vmstack]") != NULL;
		_exit(found);
	}
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("forkcheck: the child had the ring mapping\n");
		bad = 1;
	}
	before = written_now(nl, s.fd);
	usleep(500000);
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	after = written_now(nl, s.fd);
	printf("forkcheck: child without the mapping: %s; samples written in the 0.5 s after its exit: %llu\n",
	       bad ? "no" : "yes", (unsigned long long)(after - before));
	bad |= after == before || dofork;
	/* Closing the descriptor stops sampling; the mapped rings stay readable. */
	close(s.fd);
	read = 0;
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	usleep(300000);
	before = read;
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	printf("forkcheck: samples in the rings 0.3 s after closing the descriptor: %lu\n",
	       read - before);
	bad |= read != before;
	munmap(area, size);
	vmstack_nl_close(nl);
	return bad;
}

static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f)) {
		fprintf(stderr, "probe: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

struct by_phase {
	int cpu;
	int phase;
	unsigned long samples[3];	/* on cpu: before, while offline, after */
};

static void count_cpu(const struct vmstack_rec_sample *rec, void *arg)
{
	struct by_phase *p = arg;

	if ((int)rec->cpu == p->cpu)
		p->samples[p->phase]++;
}

/* @cpu off for a second mid-session and back: it is sampled again after. */
int hotplug(int pid, int cpu)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 64 };
	struct by_phase p = { .cpu = cpu };
	struct vmstack_cpu_counts c[64];
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	unsigned int i, n;
	char msg[256];
	size_t size;
	double t0, t;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v) || cpu >= (int)s.nr_cpus)
		return 2;
	for (t0 = now(); (t = now() - t0) < 3.5;) {
		usleep(10000);
		if (p.phase == 0 && t >= 1.0) {
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_cpu, &p);
			if (set_online(cpu, 0))
				return 2;
			p.phase = 1;
		} else if (p.phase == 1 && t >= 2.0) {
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_cpu, &p);
			if (set_online(cpu, 1))
				return 2;
			p.phase = 2;
		}
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_cpu, &p);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	if (vmstack_nl_cpu_stats(nl, s.fd, c, 64, &n, msg, sizeof(msg)) || cpu >= (int)n)
		return 2;
	printf("hotplug: samples on CPU %d: %lu before, %lu while offline, %lu after; offline %.3f s counted\n",
	       cpu, p.samples[0], p.samples[1], p.samples[2],
	       VMSTACK_CNT(&c[cpu], OFFLINE_NS) / 1e9);
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return !(p.samples[0] && p.samples[2] && VMSTACK_CNT(&c[cpu], OFFLINE_NS) > 500000000ULL);
}

/* The histogram's value at fraction @q (the upper end of its bucket). */
static uint64_t hist_at(const uint64_t *hist, double q)
{
	unsigned int b = vmstack_hist_bucket_at(hist, q);

	if (b == VMSTACK_HIST_BUCKETS)
		return 0;
	return b + 1 < VMSTACK_HIST_BUCKETS ? vmstack_hist_lower(b + 1) : ~0ULL;
}

/* One session of @secs on @pid (with descriptor @d unless NULL). */
static int measure(struct vmstack_nl *nl, int pid, unsigned int depth,
		   const struct vmstack_vm_desc4 *d, double secs, uint64_t *hist,
		   struct vmstack_cpu_counts *c)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = depth, .ring_pages = 64, .paused = 1 };
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	unsigned long read = 0;
	unsigned int i;
	char msg[256];
	size_t size;
	double t0;
	void *area;

	if (open_mapped(nl, &req, &s, &area, &size, v))
		return -1;
	if (d && vmstack_nl_vm_add(nl, s.fd, 0, d, sizeof(*d), msg, sizeof(msg))) {
		fprintf(stderr, "probe: hostile descriptor refused: %s\n", msg);
		return -1;
	}
	vmstack_nl_session_resume(nl, s.fd, msg, sizeof(msg));
	for (t0 = now(); now() - t0 < secs;) {
		usleep(10000);
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_sample, &read);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	vmstack_nl_session_stats(nl, s.fd, c, hist, msg, sizeof(msg));
	munmap(area, size);
	close(s.fd);
	return 0;
}

/*
 * The most work a target can ask of the handler: all of user space is
 * "VM code", so every native frame runs the program, and the program is
 * a loop of one read and six other instructions that never exits: runs
 * stop at VMSTACK_VM4_RUN_STEPS, and the sample's reads (4096) run out
 * at 28,672 of its VMSTACK_VM4_SAMPLE_STEPS (32,768): both bounds spent.
 */
int hostile(int pid, double secs)
{
	static struct vmstack_vm_desc4 d;
	unsigned int i;
	static uint64_t plain_hist[VMSTACK_HIST_BUCKETS], hostile_hist[VMSTACK_HIST_BUCKETS];
	struct vmstack_cpu_counts plain, bad;
	struct vmstack_nl *nl;
	char msg[256];

	least_desc(&d);
	d.ranges[0].end = USER_END;
	d.flags = VMSTACK_VM4_F_NATIVE_STEP;
	d.max_frames = VMSTACK_VM_MAX_FRAMES;
	d.prog_len = 7;
	d.prog[0] = (struct vmstack_vm_insn){ VMSTACK_VM4_LD64, VMSTACK_VM4_REGS_OF(3, 1), 0, 0 };
	for (i = 1; i < 6; i++)
		d.prog[i] = (struct vmstack_vm_insn){ VMSTACK_VM4_ADD_K, 4, 0, 1 };
	d.prog[6] = (struct vmstack_vm_insn){ VMSTACK_VM4_JA, 0, -7, 0 };
	if (vmstack_vm_desc4_check(&d)) {
		fprintf(stderr, "hostile: %s\n", vmstack_vm_desc4_check(&d));
		return 2;
	}
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    measure(nl, pid, 128, NULL, secs, plain_hist, &plain) ||
	    measure(nl, pid, VMSTACK_MAX_DEPTH, &d, secs, hostile_hist, &bad))
		return 2;
	printf("hostile: plain, 128 frames: p50 %llu ns, p99 %llu ns, max %llu ns (%llu samples)\n",
	       (unsigned long long)hist_at(plain_hist, 0.5), (unsigned long long)hist_at(plain_hist, 0.99),
	       (unsigned long long)hist_at(plain_hist, 1.0),
	       (unsigned long long)VMSTACK_CNT(&plain, WRITTEN));
	printf("hostile: hostile descriptor, %d frames: p50 %llu ns, p99 %llu ns, max %llu ns (%llu samples, %llu cut by the read budget, %llu throttled)\n",
	       VMSTACK_MAX_DEPTH, (unsigned long long)hist_at(hostile_hist, 0.5),
	       (unsigned long long)hist_at(hostile_hist, 0.99),
	       (unsigned long long)hist_at(hostile_hist, 1.0),
	       (unsigned long long)VMSTACK_CNT(&bad, WRITTEN),
	       (unsigned long long)VMSTACK_CNT(&bad, BUDGET),
	       (unsigned long long)VMSTACK_CNT(&bad, THROTTLED));
	printf("hostile: p99 ratio %.1f\n",
	       (double)hist_at(hostile_hist, 0.99) / (double)hist_at(plain_hist, 0.99));
	vmstack_nl_close(nl);
	return !VMSTACK_CNT(&bad, BUDGET);
}
