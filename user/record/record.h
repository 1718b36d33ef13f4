/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording, layer by layer: what the user asked (options.h), the
 * session with the module (session.h), the processes sampled
 * (targets.h), the samples taken in (intake.c) into the profile under
 * way, the profiles written (write.c), the summary (summary.c) and the
 * loop that drives them (loop.c). main.c is the recipe.
 */
#ifndef VMSTACK_RECORD_RECORD_H
#define VMSTACK_RECORD_RECORD_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "off_cpu.h"
#include "options.h"
#include "raw_file.h"
#include "rotate.h"
#include "session.h"
#include "stacks.h"
#include "targets.h"
#include "threads.h"

/*
 * What one profile gathers: an interval of --every (each starts empty, so
 * memory stays flat however long), else the whole recording.
 */
struct record_interval {
	struct vmstack_stacks stacks;
	struct vmstack_threads threads;	/* names of the threads sampled */
	double start;			/* CLOCK_MONOTONIC s */
	time_t wall;			/* its start, for --every's file name */
	uint64_t lost_before;		/* the module's DROPPED when it started */
};

/* --every: the profiles written and when the next is due. */
struct record_series {
	struct vmstack_rotate rotate;
	double next;			/* on a grid from sampling's start */
	uint64_t samples_before;	/* in the intervals written */
	unsigned int written;		/* profiles written */
};

/* Samples whose VM part was cut, by the reason (enum vmstack_vm_broken; 0: unknown). */
struct record_vm_cuts {
	uint64_t by_reason[__VMSTACK_VMB_MAX];
};

struct recording {
	const struct record_options *o;
	struct record_session session;
	struct record_targets targets;
	struct record_interval interval;
	struct record_series series;
	struct vmstack_raw_buf raw;	/* every record, with --raw */
	struct vmstack_off_cpu off_cpu;	/* --off-cpu, --wall: waits from switch-outs */
	uint64_t wall_samples;		/* --wall: CPU samples, for the summary */
	uint64_t undescribed;		/* samples walked with frame pointers only */
	struct record_vm_cuts vm_cuts;
	uint64_t duration_ns;		/* sampling's wall time */
	unsigned int drain_ms;		/* the loop's period (loop.c) */
	uint64_t drains, drains_full;	/* of them, finding a ring over half full */
	/* A command: release to let go from its entry point (ms); < 0 not held. */
	double command_held_ms;
};

/* intake.c: samples from the rings into the interval. */
void record_intake_init(struct recording *r);
/*
 * Every CPU's ring emptied into the interval (and --raw's buffer). 1 if
 * one was more than half full: drain again at once.
 */
int record_drain(struct recording *r);
/* After the last drain: --off-cpu's waits still under way, weighed. */
void record_intake_end(struct recording *r);
/* --wall: a CPU sample's weight, its period (1 / -F of a second), in us. */
uint64_t record_wall_sample_us(const struct recording *r);
void record_intake_free(struct recording *r);

/* vm_cuts.c: why VM parts were cut, counted and named. */
void record_vm_cuts_note(struct record_vm_cuts *c, const struct vmstack_rec_sample *rec);
/* " (N [vm stack cut: R]: why, ...)" for the reasons seen; nothing if none. */
void record_vm_cuts_print(const struct record_vm_cuts *c, FILE *out);

/* write.c: profiles named and written. */
/* --every's directory made if needed. 0, or -1 (said why). */
int record_series_open(struct recording *r);
/* The interval starts now (sampling started, or the last was written). */
void record_interval_begin(struct recording *r, double at, uint64_t lost);
/* --every: write the interval under way, then start the next. 0, or -1. */
int record_write_interval(struct recording *r);
/* Without --every: the one profile to -o and --svg. 0, or -1. */
int record_write_output(struct recording *r, uint64_t lost);
/* --raw: the first target's raw recording. 0, or -1 (said why). */
int record_write_raw(struct recording *r, const struct vmstack_cpu_counts *c);

/* summary.c: what the recording took and lost, on stderr. */
void record_summary(const struct recording *r, const struct vmstack_cpu_counts *c,
		    const uint64_t *hist);

/* loop.c: SIGINT, SIGTERM (and SIGHUP) end the loop; with --every SIGHUP ends an interval. */
void record_catch_signals(int hup_rotates);
/* r->drain_ms: the loop's period, from whether the module wakes us. */
void record_drain_period(struct recording *r);
/* Drain, refresh and report until the targets exit, time is up or a signal. */
void record_loop(struct recording *r);

#endif
