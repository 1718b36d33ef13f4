/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes a recording samples: -p's list (and the processes they
 * start: follow.c) or a command (fixed), or under -a, --cgroup and
 * --children a set processes join as their first samples come and leave
 * once they exited and their samples are named. targets.c keeps the set
 * (joins, the running-process scan, exits, reaping); describe.c tells the
 * module and the namer about each member (its VMs, unwind rules,
 * mappings, name).
 */
#ifndef VMSTACK_RECORD_TARGETS_H
#define VMSTACK_RECORD_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"
#include "unwind/upload.h"

struct pollfd;
struct record_options;
struct record_session;

struct record_targets {
	const struct record_options *o;
	struct record_session *session;
	struct vmstack_target *t;	/* the processes sampled */
	size_t n, nexited;
	/*
	 * -a, --cgroup: processes join as their first samples come (a free
	 * slot, pid -1, is reused once its process exited and its last
	 * interval is written); at most @cap of them.
	 */
	int whole;			/* also --children */
	/* -p: the named processes' children join too (follow.c), after them. */
	int follow;
	size_t named, followed, followed_refused;
	double follow_scanned;
	size_t cap;
	struct pollfd *pfd;		/* record_targets_wait's */
	size_t *pfd_target;
	size_t joined, not_described, untracked;
	int command_exited;
	struct vmstack_target *last;	/* of the last sample: most samples repeat it */
	/* Of processes started while recording: start to described (s). */
	double boot_started;		/* sampling's start, CLOCK_BOOTTIME */
	double *join_delay;
	size_t njoin_delay, capjoin_delay;
	struct vmstack_unwind_stats uw;	/* the mappings' unwind rules */
};

/* targets.c: the set. */
/* Each target's process object, VMs and mappings; a command's maps come later. */
void record_targets_open(struct record_targets *ts, const struct record_options *o,
			 struct record_session *s);
/*
 * Sampling is about to start (the mark --stats' join delays count from):
 * -a and --cgroup describe the processes on a CPU now.
 */
void record_targets_join_running(struct record_targets *ts);
/*
 * Process @pid joins the set (the module's too, unless it refuses); NULL
 * when the recorder holds as many as it can (counted).
 */
struct vmstack_target *record_targets_join(struct record_targets *ts, int pid);
/* The target of a sample of process @pid (-a and the like: joined now), or NULL. */
struct vmstack_target *record_targets_of_sample(struct record_targets *ts, int pid);
/* Wait up to @ms for a target to exit; note those that did. */
void record_targets_wait(struct record_targets *ts, int ms);
/* The targets exited: -p's all, a command (its children or not); never -a. */
int record_targets_done(const struct record_targets *ts);
/*
 * -a, --cgroup, --children, -p's children: the exited targets' slots
 * freed (their samples named).
 */
void record_targets_reap(struct record_targets *ts);
/* Their processes closed; the counts stay for the caller. */
void record_targets_close(struct record_targets *ts);

/* describe.c: each target to the module and the namer. */
/* The module's name for @t: 0 for the first (every module knows it). */
uint32_t record_module_pid(const struct record_targets *ts, const struct vmstack_target *t);
/* @t opened on @pid, with its VMs' callbacks; its mappings not read yet. */
void record_target_open(struct record_targets *ts, struct vmstack_target *t, int pid);
/* --stats: how long a process started meanwhile ran before it was described. */
void record_note_join_delay(struct record_targets *ts, const struct vmstack_target *t);
/* --vm FILE: its descriptors in place before the first sample. 0, or -1 (said why). */
int record_targets_vm_file(struct record_targets *ts);
/* Sampling started (a command released): mappings, VMs and names read. */
void record_targets_describe(struct record_targets *ts);
/*
 * New libraries (dlopen) and names (exec) looked for where it is time;
 * @last_change: when one was last found. Returns 1 if a mapping was new.
 */
int record_targets_refresh(struct record_targets *ts, double last_change);
/* Perf maps (/tmp/perf-PID.map) read for the naming at the end. */
void record_targets_load_perf_maps(struct record_targets *ts);

#endif
