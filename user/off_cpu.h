/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waits from switch-outs (--off-cpu). The module writes a record
 * (VMSTACK_REC_SWITCH) where a thread stops running, with the thread's
 * CPU time and switch count then; the wait that starts there ends when
 * the thread runs again, which the module does not see. The thread's
 * next switch-out tells it: the time between the two, less the CPU time
 * the thread had between, is the wait (exact when the counts say no
 * switch-out between went unrecorded). So each record's weight is known
 * one record later; a thread still waiting when the recording ends is
 * weighed then, from its CPU time in /proc.
 *
 * Records of one thread may arrive out of order: each CPU's ring is
 * drained in turn, so a thread that switched out on a CPU just read and
 * again on one not read yet has its later record in this drain and its
 * earlier one in the next. A record made more than VMSTACK_OFF_CPU_HOLD_NS
 * before a drain began was in its ring by then (a walk takes far less),
 * so each drain pairs, in order by thread and time, the records older
 * than that, and holds the newer ones for the next. A wait counts in the
 * --every interval in which its end is learnt.
 */
#ifndef VMSTACK_OFF_CPU_H
#define VMSTACK_OFF_CPU_H

#include <stdint.h>
#include <stdio.h>
#include <linux/vmstack.h>

#include "hash_table.h"

#define VMSTACK_OFF_CPU_HOLD_NS	50000000ULL
/* How often threads that exited leave the table of waits under way. */
#define VMSTACK_OFF_CPU_PRUNE_NS	10000000000ULL

/* A switch-out's stack and its wait's weight in microseconds. */
typedef void (*vmstack_off_cpu_fn)(const struct vmstack_rec_sample *rec,
				   uint64_t weight_us, void *arg);

struct vmstack_off_cpu_counts {
	uint64_t switches;	/* switch-outs recorded */
	uint64_t waits, wait_ns;	/* measured and shown */
	uint64_t runnable, runnable_ns;	/* of them: preempted, waiting for a CPU */
	uint64_t short_waits;	/* shorter than the minimum: counted only */
	uint64_t gaps, gap_ns;	/* a switch-out between not recorded: not shown */
	uint64_t open;		/* waiting at the end: weighed to then */
	uint64_t unended;	/* exited, or its ID reused, before its wait's end was seen */
	uint64_t unpaired;	/* out of order, or no thread ID */
	/* CPU time between each thread's switch-outs, and to the end (--wall's check). */
	uint64_t run_ns;
};

struct vmstack_off_cpu {
	uint64_t min_wait_ns;
	vmstack_off_cpu_fn fn;
	void *arg;
	struct hash_table waits;	/* by thread: the switch-out its wait began at */
	uint8_t *batch;			/* records not paired yet, copied */
	size_t batch_len, batch_cap, batch_n;
	uint64_t pruned_at;		/* the records' clock */
	struct vmstack_off_cpu_counts n;
};

void vmstack_off_cpu_init(struct vmstack_off_cpu *oc, uint64_t min_wait_ns,
			  vmstack_off_cpu_fn fn, void *arg);
/* A switch-out record from a ring (kept until vmstack_off_cpu_settle()). */
void vmstack_off_cpu_take(struct vmstack_off_cpu *oc, const struct vmstack_rec_sample *rec);
/*
 * After a drain of every ring that began at @drained_ns (CLOCK_MONOTONIC;
 * UINT64_MAX once the session stopped: every record is in): the records
 * made before @drained_ns - VMSTACK_OFF_CPU_HOLD_NS paired in order, and
 * each wait that ended handed to fn with its weight.
 */
void vmstack_off_cpu_settle(struct vmstack_off_cpu *oc, uint64_t drained_ns);
/*
 * The recording ended (its last drain settled): the waits under way,
 * weighed up to now from each thread's CPU time (/proc/PID/task/TID/
 * schedstat; a thread gone is counted, not weighed).
 */
void vmstack_off_cpu_end(struct vmstack_off_cpu *oc);
/* The counts, as a summary line's tail. */
void vmstack_off_cpu_print(const struct vmstack_off_cpu_counts *n, FILE *out);
void vmstack_off_cpu_free(struct vmstack_off_cpu *oc);

#endif
