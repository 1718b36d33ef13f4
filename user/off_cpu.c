// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "off_cpu.h"
#include "ring_reader.h"
#include "util.h"

/* A thread's switch-out whose wait is under way (rec NULL: none). */
struct wait {
	uint32_t pid, tid;	/* the key */
	struct vmstack_rec_sample *rec;
	bool gone;		/* a prune found the thread gone (prune()) */
};

void vmstack_off_cpu_init(struct vmstack_off_cpu *oc, uint64_t min_wait_ns,
			  vmstack_off_cpu_fn fn, void *arg)
{
	memset(oc, 0, sizeof(*oc));
	oc->min_wait_ns = min_wait_ns;
	oc->fn = fn;
	oc->arg = arg;
}

void vmstack_off_cpu_take(struct vmstack_off_cpu *oc, const struct vmstack_rec_sample *rec)
{
	if (oc->batch_len + rec->hdr.size > oc->batch_cap) {
		oc->batch_cap = 2 * (oc->batch_cap + rec->hdr.size);
		oc->batch = xrealloc(oc->batch, oc->batch_cap);
	}
	memcpy(oc->batch + oc->batch_len, rec, rec->hdr.size);
	oc->batch_len += rec->hdr.size;
	oc->batch_n++;
	oc->n.switches++;
}

static uint64_t switches_of(const struct vmstack_rec_sample *rec)
{
	return vmstack_rec_switch_tail(rec)->switches;
}

/*
 * By thread, then by time: each thread's in the order they happened (a
 * thread's switch-outs are one after another; its switch count says the
 * same, but not across a thread ID's reuse).
 */
static int cmp_switch(const void *a, const void *b)
{
	const struct vmstack_rec_sample *x = *(const struct vmstack_rec_sample *const *)a;
	const struct vmstack_rec_sample *y = *(const struct vmstack_rec_sample *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (switches_of(x) != switches_of(y))
		return switches_of(x) < switches_of(y) ? -1 : 1;
	return 0;
}

/* The off-CPU time from @from's switch-out to @to_ns, when the thread's CPU time was @run_ns. */
static uint64_t off_ns(const struct vmstack_rec_sample *from, uint64_t to_ns, uint64_t run_ns)
{
	uint64_t ran = run_ns - vmstack_rec_switch_tail(from)->run_ns;
	uint64_t between = to_ns - from->time_ns;

	/* Two clocks (the CPU time is the scheduler's): never below 0. */
	return to_ns > from->time_ns && run_ns >= vmstack_rec_switch_tail(from)->run_ns &&
	       between > ran ? between - ran : 0;
}

/* The thread's CPU time from @from's switch-out to when it was @run_ns. */
static void ran(struct vmstack_off_cpu *oc, const struct vmstack_rec_sample *from, uint64_t run_ns)
{
	if (run_ns > vmstack_rec_switch_tail(from)->run_ns)
		oc->n.run_ns += run_ns - vmstack_rec_switch_tail(from)->run_ns;
}

/* The wait that began at @from ended; it lasted @ns. */
static void weigh(struct vmstack_off_cpu *oc, const struct vmstack_rec_sample *from, uint64_t ns)
{
	if (ns < oc->min_wait_ns || ns < 500) {
		oc->n.short_waits++;
		return;
	}
	oc->n.waits++;
	oc->n.wait_ns += ns;
	if (from->hdr.flags & VMSTACK_SF_PREEMPTED) {
		oc->n.runnable++;
		oc->n.runnable_ns += ns;
	}
	oc->fn(from, (ns + 500) / 1000, oc->arg);
}

/* @rec is the thread's next switch-out after w's: w's wait ended between. */
static void pair(struct vmstack_off_cpu *oc, struct wait *w, const struct vmstack_rec_sample *rec)
{
	const struct vmstack_rec_switch_tail *t = vmstack_rec_switch_tail(rec);
	uint64_t before = switches_of(w->rec);

	ran(oc, w->rec, t->run_ns);
	if (t->switches == before + 1) {
		weigh(oc, w->rec, off_ns(w->rec, rec->time_ns, t->run_ns));
	} else {
		/* Several waits, one of them shown by this stack: none is. */
		oc->n.gaps++;
		oc->n.gap_ns += off_ns(w->rec, rec->time_ns, t->run_ns);
	}
}

/* @rec is a thread's latest switch-out: pair it with the one before, keep it. */
static void settle_one(struct vmstack_off_cpu *oc, const struct vmstack_rec_sample *rec)
{
	uint32_t key[2] = { rec->pid, rec->tid };
	struct wait *w;
	bool added;

	/* No thread ID: it exited before this switch-out, or is not in our PID namespace. */
	if (!rec->tid) {
		oc->n.unpaired++;
		return;
	}
	w = hash_table_add(&oc->waits, key, sizeof(key), sizeof(*w), &added);
	if (w->rec && rec->time_ns < w->rec->time_ns) {
		/* Older than the one kept: held too little past its drain. */
		oc->n.unpaired++;
		return;
	}
	if (w->rec && (switches_of(rec) <= switches_of(w->rec) ||
		       vmstack_rec_switch_tail(rec)->run_ns < vmstack_rec_switch_tail(w->rec)->run_ns))
		/* Later, fewer switches or less CPU time: a new thread with an exited one's ID. */
		oc->n.unended++;
	else if (w->rec)
		pair(oc, w, rec);
	free(w->rec);
	w->rec = xmalloc(rec->hdr.size);
	memcpy(w->rec, rec, rec->hdr.size);
	w->gone = false;
}

/*
 * Whether thread @tid of @pid has not exited: a zombie's /proc files are
 * still there (a command's until the recorder reaps it), its state says
 * Z or X.
 */
static bool thread_lives(uint32_t pid, uint32_t tid)
{
	char path[64], *text, *end;
	bool lives;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/stat", pid, tid);
	text = read_file(path, 4096);
	if (!text)
		return false;
	/* "TID (COMM) STATE ...": COMM may hold anything, the last ')' ends it. */
	end = strrchr(text, ')');
	lives = end && end[1] == ' ' && end[2] && !strchr("ZXx", end[2]);
	free(text);
	return lives;
}

/*
 * The table keeps a thread's latest switch-out until its next: threads
 * that exited leave it here (their last wait's end is never seen), so
 * that a long recording of threads that come and go stays flat. One found
 * gone is dropped at the next prune, not at once: its next switch-out
 * may be among the records held back then.
 */
static void prune(struct vmstack_off_cpu *oc)
{
	struct hash_table kept = { 0 };
	struct wait *w, *k;
	bool added, lives;
	size_t i;

	for (i = 0; (w = hash_table_next(&oc->waits, &i, sizeof(*w)));) {
		if (!w->rec)
			continue;
		lives = thread_lives(w->pid, w->tid);
		if (w->gone && !lives) {
			oc->n.unended++;
			free(w->rec);
			continue;
		}
		k = hash_table_add(&kept, w, 2 * sizeof(uint32_t), sizeof(*w), &added);
		k->rec = w->rec;
		k->gone = !lives;
	}
	hash_table_free(&oc->waits);
	oc->waits = kept;
}

void vmstack_off_cpu_settle(struct vmstack_off_cpu *oc, uint64_t drained_ns)
{
	/* Most drains of a quiet target bring none: no allocation then. */
	const struct vmstack_rec_sample **v = oc->batch_n ? xmalloc(oc->batch_n * sizeof(*v)) : NULL;
	uint64_t upto = drained_ns > VMSTACK_OFF_CPU_HOLD_NS ?
			drained_ns - VMSTACK_OFF_CPU_HOLD_NS : 0;
	const struct vmstack_rec_sample *rec;
	size_t i, off, size, n = 0, held = 0;

	if (drained_ns == UINT64_MAX)
		upto = UINT64_MAX;
	for (off = 0; off < oc->batch_len; off += rec->hdr.size) {
		rec = (const struct vmstack_rec_sample *)(oc->batch + off);
		if (rec->time_ns < upto)
			v[n++] = rec;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_switch);
	for (i = 0; i < n; i++)
		settle_one(oc, v[i]);
	free(v);
	/* The records held, moved to the front in their order. */
	for (off = 0, i = 0; off < oc->batch_len; off += size) {
		rec = (const struct vmstack_rec_sample *)(oc->batch + off);
		size = rec->hdr.size;
		if (rec->time_ns < upto)
			continue;
		memmove(oc->batch + i, rec, size);
		i += size;
		held++;
	}
	oc->batch_len = i;
	oc->batch_n = held;
	if (upto != UINT64_MAX && upto - oc->pruned_at > VMSTACK_OFF_CPU_PRUNE_NS) {
		prune(oc);
		oc->pruned_at = upto;
	}
}

/* The CPU time of thread @tid of @pid so far, in ns; -1 if it is gone. */
static int64_t thread_run_ns(uint32_t pid, uint32_t tid)
{
	char path[64], *text;
	unsigned long long ns;
	int ok;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/schedstat", pid, tid);
	text = read_file(path, 128);
	if (!text)
		return -1;
	/* "RUN_NS WAIT_NS TIMESLICES" (Documentation/scheduler/sched-stats.rst). */
	ok = sscanf(text, "%llu", &ns) == 1;
	free(text);
	return ok ? (int64_t)ns : -1;
}

void vmstack_off_cpu_end(struct vmstack_off_cpu *oc)
{
	struct timespec ts;
	struct wait *w;
	int64_t run;
	size_t i;

	for (i = 0; (w = hash_table_next(&oc->waits, &i, sizeof(*w)));) {
		if (!w->rec)
			continue;
		run = thread_lives(w->rec->pid, w->rec->tid) ?
		      thread_run_ns(w->rec->pid, w->rec->tid) : -1;
		/* The same clock as the records' time (ktime_get_mono_fast_ns()). */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (run < 0) {
			oc->n.unended++;
		} else {
			oc->n.open++;
			ran(oc, w->rec, (uint64_t)run);
			weigh(oc, w->rec, off_ns(w->rec, (uint64_t)ts.tv_sec * 1000000000 +
						 (uint64_t)ts.tv_nsec, (uint64_t)run));
		}
		free(w->rec);
		w->rec = NULL;
	}
}

void vmstack_off_cpu_print(const struct vmstack_off_cpu_counts *n, FILE *out)
{
	fprintf(out, "%" PRIu64 " switch-outs, %" PRIu64 " waits shown (%.3f s", n->switches,
		n->waits, n->wait_ns / 1e9);
	if (n->runnable)
		fprintf(out, "; %" PRIu64 " of them preempted, runnable: %.3f s", n->runnable,
			n->runnable_ns / 1e9);
	fprintf(out, ")");
	if (n->open)
		fprintf(out, ", %" PRIu64 " of threads waiting or running at the end (weighed to it)",
			n->open);
	if (n->short_waits)
		fprintf(out, ", %" PRIu64 " shorter than --min-wait (counted only)", n->short_waits);
	if (n->gaps)
		fprintf(out, ", %" PRIu64 " not shown (a switch-out between them not recorded: %.3f s)",
			n->gaps, n->gap_ns / 1e9);
	if (n->unended)
		fprintf(out, ", %" PRIu64 " whose end was not seen (the thread exited)",
			n->unended);
	if (n->unpaired)
		fprintf(out, ", %" PRIu64 " not weighed (no thread ID: exited, or outside the recorder's PID namespace; or out of order)",
			n->unpaired);
}

void vmstack_off_cpu_free(struct vmstack_off_cpu *oc)
{
	struct wait *w;
	size_t i;

	for (i = 0; (w = hash_table_next(&oc->waits, &i, sizeof(*w)));)
		free(w->rec);
	hash_table_free(&oc->waits);
	free(oc->batch);
	memset(oc, 0, sizeof(*oc));
}
