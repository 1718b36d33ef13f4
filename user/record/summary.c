// SPDX-License-Identifier: GPL-2.0
/*
 * The summary on stderr when a recording ends (record.h): samples, what
 * was lost and why, VMs merged; with --stats the module's own cost.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "follow.h"
#include "record.h"
#include "setuid_watch.h"

#define LOSS_WARN_PERCENT 2.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value below which a fraction q of the samples fall. */
static uint64_t hist_quantile(const uint64_t *hist, double q)
{
	unsigned int b = vmstack_hist_bucket_at(hist, q);

	return b < VMSTACK_HIST_BUCKETS ? vmstack_hist_lower(b) : 0;
}

static void print_cost(const struct recording *r, const struct vmstack_cpu_counts *c,
		       const uint64_t *hist)
{
	uint64_t taken = VMSTACK_CNT(c, TAKEN), written = VMSTACK_CNT(c, WRITTEN);
	double mean = taken ? (double)VMSTACK_CNT(c, HANDLER_NS) / taken : 0;
	double fps = written ? (double)VMSTACK_CNT(c, FRAMES) / written : 0;
	const struct record_targets *ts = &r->targets;

	fprintf(stderr, TOOL ": handler: p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, max %" PRIu64
		" ns, mean %.0f ns; %.1f frames/sample, %.1f ns/frame\n",
		hist_quantile(hist, 0.5), hist_quantile(hist, 0.99), hist_quantile(hist, 1.0),
		mean, fps, fps ? mean / fps : 0);
	fprintf(stderr, TOOL ": unwind rules: %zu mappings (%zu of them rows another process uploaded), %zu rows sent, %" PRIu64
		" bytes in the module; %" PRIu64 " lookups, %.1f%% from the per-CPU cache\n",
		ts->uw.maps, ts->uw.shared, ts->uw.rows, ts->uw.bytes, VMSTACK_CNT(c, UW_LOOKUPS),
		VMSTACK_CNT(c, UW_LOOKUPS) ?
		100.0 * VMSTACK_CNT(c, UW_HITS) / VMSTACK_CNT(c, UW_LOOKUPS) : 0.0);
	if (r->o->cmd && r->command_held_ms >= 0)
		fprintf(stderr, TOOL ": the command was held at its entry point until its mappings' unwind rules were in the module: %.1f ms from its release\n",
			r->command_held_ms);
	else if (r->o->cmd && r->o->cfi)
		fprintf(stderr, TOOL ": the command was not held at its entry point (not traced)\n");
	if (ts->njoin_delay) {
		double *d = ts->join_delay;
		size_t n = ts->njoin_delay;

		qsort(d, n, sizeof(*d), cmp_double);
		fprintf(stderr, TOOL ": %zu processes started while recording were described %.0f ms (median; max %.0f ms) after they started (1/%ld s steps)\n",
			n, 1e3 * d[n / 2], 1e3 * d[n - 1], sysconf(_SC_CLK_TCK));
	}
	fprintf(stderr, TOOL ": rings: %u pages a CPU (%zu KiB) on %u CPUs, drained %s%u ms; %" PRIu64
		" of %" PRIu64 " drains found one over half full (drained again at once)\n",
		r->session.started.ring_pages,
		(size_t)r->session.started.ring_pages * (size_t)sysconf(_SC_PAGESIZE) >> 10,
		r->session.started.nr_cpus,
		r->session.wake_fd >= 0 ? "when one is a quarter full, or after " : "every ",
		r->drain_ms, r->drains_full, r->drains);
	if (!r->session.started.task_events)
		fprintf(stderr, TOOL ": events: one per CPU, filtered by process%s%s%s",
			r->session.cpu_events_why[0] ? " (" : "", r->session.cpu_events_why,
			r->session.cpu_events_why[0] ? ")" : "");
	else if (r->o->cmd)
		fprintf(stderr, TOOL ": events: one on the command, inherited by its threads%s",
			r->o->children ? " and child processes" : "");
	else
		fprintf(stderr, TOOL ": events: one on each thread of the target%s, inherited by the threads they make (%" PRIu64
			" made, %" PRIu64 " of them for threads found by a later scan)",
			r->o->npids > 1 || r->targets.n > 1 ? "s" : "",
			VMSTACK_CNT(c, THREAD_EVENTS), VMSTACK_CNT(c, THREADS_LATE));
	fprintf(stderr, "; %" PRIu64 " interrupts taken, %" PRIu64
		" of them in the target\n",
		VMSTACK_CNT(c, TAKEN) + VMSTACK_CNT(c, OTHER), VMSTACK_CNT(c, TAKEN));
}

/*
 * --wall: the CPU samples' time beside the threads' CPU clocks between
 * their switch-outs (which the samples should cover, and more). A timer
 * delivered late loses the periods it skipped (perf_swevent_hrtimer()
 * forwards over them): under a hypervisor's load, or at a high -F.
 */
static void wall_line(const struct recording *r, uint64_t drops)
{
	double sampled = r->wall_samples * (double)record_wall_sample_us(r) / 1e6;
	double clocks = r->off_cpu.n.run_ns / 1e9;

	fprintf(stderr, TOOL ": on CPU: %" PRIu64 " samples, %.3f s at %u Hz (the threads' CPU clocks between their switch-outs: %.3f s)\n",
		r->wall_samples, sampled, r->session.started.freq, clocks);
	if (clocks > 0.5 && sampled < 0.9 * clocks)
		fprintf(stderr, TOOL ": warning: CPU samples stand for %.0f%% of the threads' CPU time: %s; lower -F\n",
			100 * sampled / clocks, drops ? "samples were lost (above)" :
			"the timer's interrupts came late and skipped periods");
}

void record_summary(const struct recording *r, const struct vmstack_cpu_counts *c,
		    const uint64_t *hist)
{
	uint64_t taken = VMSTACK_CNT(c, TAKEN), dropped = VMSTACK_CNT(c, DROPPED);
	double lost = taken ? 100.0 * dropped / taken : 0.0;
	double ring_lost = taken ? 100.0 * (dropped - VMSTACK_CNT(c, THROTTLED)) / taken : 0.0;
	const struct record_targets *ts = &r->targets;
	const struct vmstack_target *t;
	/* Off CPU, a stack counts waits (each weighed by its time). */
	const char *what = r->o->wall ? "samples and waits" : r->o->off_cpu ? "waits" : "samples";
	int vms = 0;

	if (r->o->every)
		fprintf(stderr, TOOL ": %" PRIu64 " %s, %" PRIu64 " lost (%.2f%%), in %u profiles in %s",
			r->series.samples_before, what, dropped, lost, r->series.written,
			r->o->output);
	else
		fprintf(stderr, TOOL ": %" PRIu64 " %s, %" PRIu64 " lost (%.2f%%), %zu distinct stacks",
			r->interval.stacks.samples, what, dropped, lost, r->interval.stacks.n);
	for (t = ts->t; t < ts->t + ts->n; t++) {
		if (t->pid < 0 || !t->vms.n)
			continue;
		/* A whole machine's list would not fit a line: a count. */
		if (ts->whole && ts->n > 8) {
			vms++;
			continue;
		}
		if (ts->n == 1)
			fprintf(stderr, "; VM frames merged (%s)", t->vms.label);
		else
			fprintf(stderr, "%s %s (%d): %s", vms ? "," : "; VM frames merged:",
				t->comm, t->pid, t->vms.label);
		vms++;
	}
	if (vms && ts->whole && ts->n > 8)
		fprintf(stderr, "; VM frames merged in %d processes", vms);
	if (vms) {
		fprintf(stderr, "; %" PRIu64 " VM stacks cut by bad VM data",
			VMSTACK_CNT(c, VM_ERRORS));
		record_vm_cuts_print(&r->vm_cuts, stderr);
	}
	/* Frames a VM was caught setting up or tearing down (ABI 3.6). */
	if (vms && VMSTACK_CNT(c, VM_UNVERIFIED))
		fprintf(stderr, ", %" PRIu64 " with a VM frame unverified ([vm unverified])",
			VMSTACK_CNT(c, VM_UNVERIFIED));
	if (VMSTACK_CNT(c, USER_FAULTS) || VMSTACK_CNT(c, TRUNCATED))
		fprintf(stderr, "; %" PRIu64 " user stacks cut by unreadable memory, %" PRIu64
			" by --max-depth", VMSTACK_CNT(c, USER_FAULTS), VMSTACK_CNT(c, TRUNCATED));
	if (VMSTACK_CNT(c, BUDGET))
		fprintf(stderr, "; %" PRIu64 " by the read budget", VMSTACK_CNT(c, BUDGET));
	fprintf(stderr, "\n");
	if (r->o->wall)
		wall_line(r, dropped);
	if (r->o->off_cpu) {
		fprintf(stderr, TOOL ": off CPU: ");
		vmstack_off_cpu_print(&r->off_cpu.n, stderr);
		fprintf(stderr, "\n");
	}
	if (ts->whole)
		fprintf(stderr, TOOL ": %zu processes seen, %zu of them not described (kernel threads, idle, refused), %zu beyond the %zu the recorder holds; %" PRIu64
			" samples walked with frame pointers only (before their process was described, or never)\n",
			ts->joined + ts->untracked, ts->not_described, ts->untracked, ts->cap,
			r->undescribed);
	if (ts->followed)
		fprintf(stderr, TOOL ": %zu child processes of the targets followed, %zu of them not described (refused by the module: their samples are not taken); a child's samples before it was found (within %d ms) are not taken\n",
			ts->followed, ts->followed_refused, FOLLOW_SCAN_MS);
	if (ts->follow && ts->untracked)
		fprintf(stderr, TOOL ": %zu child processes not followed: the recorder holds %zu processes\n",
			ts->untracked, ts->cap);
	if (VMSTACK_CNT(c, THROTTLED))
		fprintf(stderr, TOOL ": %" PRIu64 " of the lost samples were dropped because the handler took over %d%% of a CPU: lower -F or --max-depth\n",
			VMSTACK_CNT(c, THROTTLED), VMSTACK_HANDLER_MAX_PERCENT);
	record_setuid_watch_report(ts, stderr);
	if (VMSTACK_CNT(c, THREADS_OVER))
		fprintf(stderr, TOOL ": warning: %" PRIu64 " threads were not sampled: the module gives events to %d threads of a session at most\n",
			VMSTACK_CNT(c, THREADS_OVER),
			/* --wall's threads have two events each. */
			VMSTACK_MAX_THREAD_EVENTS / (r->o->wall ? 2 : 1));
	if (VMSTACK_CNT(c, NOT_DUMPABLE) || VMSTACK_CNT(c, COMPAT))
		fprintf(stderr, TOOL ": user stacks not read: %" PRIu64 " samples of a target no longer dumpable (setuid), %" PRIu64 " of 32-bit code\n",
			VMSTACK_CNT(c, NOT_DUMPABLE), VMSTACK_CNT(c, COMPAT));
	if (VMSTACK_CNT(c, OFFLINE_NS))
		fprintf(stderr, TOOL ": CPUs were offline for %.3f s in all: not sampled meanwhile\n",
			VMSTACK_CNT(c, OFFLINE_NS) / 1e9);
	if (ring_lost > LOSS_WARN_PERCENT)
		fprintf(stderr, TOOL ": warning: %.1f%% of samples lost in full rings: raise --ring-pages or lower -F\n",
			ring_lost);
	if (r->o->stats)
		print_cost(r, c, hist);
	if (!r->interval.stacks.samples && !r->series.samples_before)
		fprintf(stderr, r->o->wall ?
			TOOL ": warning: no samples or waits (did the target run?)\n" :
			r->o->off_cpu ?
			TOOL ": warning: no waits (did the target ever stop running?)\n" :
			TOOL ": warning: no samples (did the target run on a CPU?)\n");
}
