/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user asked vmstack-record for: one settings struct, its
 * defaults and the checks between options in options.c, with the option
 * table that also gives --help.
 */
#ifndef VMSTACK_RECORD_OPTIONS_H
#define VMSTACK_RECORD_OPTIONS_H

#include <stddef.h>

#include "output/output.h"

/* Every message of the recorder starts with it. */
#define TOOL "vmstack-record"

/* Processes one recording may name with -p (the module takes more). */
#define MAX_PIDS 64

struct vmstack_runtime;

enum vm_mode { VM_NONE, VM_AUTO, VM_RUNTIME, VM_FILE };

struct record_options {
	int pids[MAX_PIDS];	/* -p, or the command's */
	size_t npids;
	int all;		/* -a */
	int children;		/* --children */
	int no_inherit;		/* --no-inherit */
	int cpu_events;		/* --cpu-events */
	int off_cpu;		/* --off-cpu or --wall: switch-outs paired, weights in us */
	int wall;		/* --wall: event WALL, CPU samples weighed by their period */
	int freq_given, event_given, min_wait_given;	/* -F, -e, --min-wait */
	unsigned int min_wait_us;	/* --min-wait */
	int follow;		/* -p: the targets' children too (follow.c) */
	const char *cgroup;	/* --cgroup */
	char **cmd;
	unsigned int freq, event, max_depth;
	unsigned int ring_pages;	/* 0: sized from the rate and depth (session.c) */
	double duration;
	const char *output, *svg;
	const struct vmstack_output *format;	/* NULL: by -o's suffix */
	struct vmstack_output_opts oo;
	int kernel, per_thread, quiet, stats, cfi;
	int lines, no_demangle;
	double every;		/* --every: seconds an interval; 0: one profile */
	unsigned int keep;
	const char *raw;
	enum vm_mode vm;
	const struct vmstack_runtime *vm_runtime;	/* VM_RUNTIME */
	const char *vm_file;				/* VM_FILE */
};

/*
 * Fill @o from the command line (--help and --version exit here). 0, or
 * -1 after saying what is wrong (a usage error).
 */
int record_options_parse(int argc, char **argv, struct record_options *o);

#endif
