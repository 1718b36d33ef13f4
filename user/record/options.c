// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-record's command line: the option table (getopt and --help from
 * the same rows, cli.c), each option's check, and the checks between them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "ring_size.h"
#include "vm/runtime.h"
#include "vmstack_nl.h"

#define XSTR(x) STR(x)
#define STR(x) #x


enum {
	OPT_FORMAT = CLI_LONG_ONLY, OPT_NO_KERNEL, OPT_PER_THREAD, OPT_UNWIND,
	OPT_MAX_DEPTH, OPT_RING_PAGES, OPT_VM, OPT_RAW, OPT_STATS, OPT_SVG, OPT_INVERTED,
	OPT_LINES, OPT_EVERY, OPT_KEEP, OPT_CGROUP, OPT_CHILDREN, OPT_NO_DEMANGLE,
	OPT_NO_INHERIT, OPT_CPU_EVENTS, OPT_OFF_CPU, OPT_WALL, OPT_MIN_WAIT,
};

/* --min-wait's default: as bcc's offcputime's. */
#define DEFAULT_MIN_WAIT_US 1

static const struct cli_option options[] = {
	{ "pid", 'p', "PID[,PID...]", "profile these running processes (a thread ID\n"
	  "selects its process), and the processes they start\nor had started, as they are found" },
	{ "no-inherit", OPT_NO_INHERIT, NULL, "with -p: the processes named only, not their\n"
	  "children (--raw implies it)" },
	{ "cpu-events", OPT_CPU_EVENTS, NULL, "with -p: one perf event per CPU, filtered by\n"
	  "process, instead of one on each of its threads (every\nCPU is interrupted at the rate; a setuid exec's\n"
	  "samples are counted as unread instead of not taken)" },
	{ "all", 'a', NULL, "profile every process, kernel threads included\n(needs CAP_PERFMON or root)" },
	{ "cgroup", OPT_CGROUP, "DIR", "profile the processes of a cgroup v2 directory and\n"
	  "those below it, including ones started later\n(a path, or one under /sys/fs/cgroup)" },
	{ "children", OPT_CHILDREN, NULL, "with a command: also the processes it starts, and\n"
	  "theirs (recording ends when the command exits)" },
	{ "freq", 'F', "HZ", "samples per second per CPU (default "
	  XSTR(VMSTACK_DEFAULT_FREQ) ", max " XSTR(VMSTACK_MAX_FREQ) ")" },
	{ "duration", 'd', "SECS", "stop after SECS seconds (default: until the target\nexits or Ctrl-C)" },
	{ "output", 'o', "FILE", "write the profile to FILE (default: standard output);\n"
	  "its suffix picks the format unless --format says" },
	{ "format", OPT_FORMAT, "FORMAT", "the output format (below; default folded)" },
	{ "svg", OPT_SVG, "FILE", "also draw a flame graph to FILE (without -o, only that)" },
	{ "inverted", OPT_INVERTED, NULL, "svg only: an icicle graph, stacks merged from the\n"
	  "leaf: leaf functions on the top row, callers below" },
	{ "no-kernel", OPT_NO_KERNEL, NULL, "user stacks only" },
	{ "per-thread", OPT_PER_THREAD, NULL, "one root frame per thread (COMM/TID)" },
	{ "lines", OPT_LINES, NULL, "native frames as \"func (file.c:LINE)\", and a frame\n"
	  "for each call inlined there (DWARF: the file's or\nits separate debug file's)" },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, "native functions' names as their files spell them\n"
	  "(C++'s and Rust's are demangled: \"ns::f(int)\")" },
	{ "event", 'e', "EVENT", "cpu-clock (default) or cycles (needs a PMU)" },
	{ "off-cpu", OPT_OFF_CPU, NULL, "where threads wait instead of where they run: the\n"
	  "stack at each switch-out, weighted by the time until\nthe thread runs again; counts are microseconds\n"
	  "(needs vmstack.ko 4.4)" },
	{ "wall", OPT_WALL, NULL, "where threads spend their time, running or waiting:\n"
	  "CPU samples (-F) each weighted by its period, and\n--off-cpu's waits; counts are microseconds\n"
	  "(needs vmstack.ko 4.5)" },
	{ "min-wait", OPT_MIN_WAIT, "USECS", "with --off-cpu or --wall: shorter waits are only counted\n"
	  "(default " XSTR(DEFAULT_MIN_WAIT_US) ")" },
	{ "unwind", OPT_UNWIND, "MODE", "user stacks by 'cfi' (default: rules from each\n"
	  "file's .eh_frame, frame pointers where it has none)\nor 'fp' (frame pointers only)" },
	{ "max-depth", OPT_MAX_DEPTH, "N", "frames per stack, kernel and user each; a VM's script frame counts\ntwo (default "
	  XSTR(VMSTACK_DEFAULT_MAX_DEPTH) ",\nmax " XSTR(VMSTACK_MAX_DEPTH) ")" },
	{ "ring-pages", OPT_RING_PAGES, "N", "ring buffer pages per CPU, a power of 2 (default:\n"
	  XSTR(RING_MARGIN) " times what a CPU writes in " XSTR(RING_DRAIN_MIN_MS)
	  " ms at -F with\nstacks of --max-depth, at least "
	  XSTR(VMSTACK_DEFAULT_RING_PAGES) ", less only\nwhere RLIMIT_MEMLOCK allows no more)" },
	{ "quiet", 'q', NULL, "no status line" },
	{ "vm", OPT_VM, "MODE", "VM frames: 'auto' (default: every runtime below, and\n"
	  "what a VM registers with libvmstack in\n/tmp/vmstack-PID.vm), a runtime's name, 'none',\n"
	  "or a descriptor FILE (Documentation/vm-descriptor.md)" },
	{ "raw", OPT_RAW, "FILE", "also save the raw samples and mappings to FILE\n"
	  "(vmstack-report turns them into stacks later)" },
	{ "stats", OPT_STATS, NULL, "print the module's own cost: handler time per\n"
	  "sample (p50, p99, the worst, mean) and per frame" },
	{ "every", OPT_EVERY, "SECS", "continuous: one profile per SECS seconds, into the\n"
	  "directory -o DIR as vmstack-START.SUFFIX (--format,\ndefault pprof); SIGHUP ends an interval early,\n"
	  "SIGTERM or Ctrl-C writes the last one and exits" },
	{ "keep", OPT_KEEP, "N", "with --every: keep the newest N profiles in DIR" },
	{ NULL, 0, NULL, NULL },
};

static void more_help(FILE *f)
{
	const struct vmstack_runtime *const *rt;

	fprintf(f, "VM runtimes (--vm NAME; 'auto' looks for all):\n");
	for (rt = vmstack_runtimes; *rt; rt++)
		if ((*rt)->detect)
			fprintf(f, "  %-21s %s\n", (*rt)->name, (*rt)->help);
	vmstack_output_help(f);
}

static const struct cli record_cli = {
	.tool = TOOL,
	.usage = "-p PID[,PID...] [options]\n-a | --cgroup DIR [options]\n[options] -- COMMAND [ARGS...]",
	.about = "Sample every thread of a process with vmstack.ko and write its stacks,\n"
		 "native, kernel and VM frames merged: in collapsed form (root first,\n"
		 "'a;b;c COUNT'), kernel frames marked _[k], VM frames _[vm], code a VM\n"
		 "compiled _[j]; or as a flame graph, or a pprof profile.",
	.options = options,
	.more = more_help,
	.examples = "  " TOOL " -p 1234 -d 10 -o app.folded   10 s of process 1234\n"
		    "  " TOOL " -p 1234 --every 60 --keep 1440 -o /var/lib/vmstack/\n"
		    "                                 a pprof file a minute, a day of them\n"
		    "  " TOOL " -a -F 19 --every 60 -o /var/lib/vmstack/\n"
		    "                                 the whole machine, a pprof file a minute\n"
		    "  " TOOL " --svg app.svg -- ./app          run ./app, draw its flame graph\n"
		    "  " TOOL " -F 99 --per-thread -p 1234    low rate, one root per thread\n",
	.footer = "Exit status: 0 on success, 1 on a runtime error, 2 on a usage error.\n",
};

static int bad(const char *fmt, const char *val)
{
	fprintf(stderr, TOOL ": ");
	fprintf(stderr, fmt, val);
	fputc('\n', stderr);
	return -1;
}

static int set_option(void *arg, int key, const char *val)
{
	struct record_options *o = arg;
	unsigned int v;
	char *end;

	switch (key) {
	case 'p':
		for (;;) {
			v = (unsigned int)strtoul(val, &end, 10);
			if (end == val || (*end && *end != ',') || !v || v > INT_MAX)
				return bad("bad PID list '%s'", val);
			if (o->npids == MAX_PIDS)
				return bad("-p takes at most " XSTR(MAX_PIDS) " processes ('%s')", val);
			o->pids[o->npids++] = (int)v;
			if (!*end)
				return 0;
			val = end + 1;
		}
	case 'a':
		o->all = 1;
		return 0;
	case OPT_CGROUP:
		o->cgroup = val;
		return 0;
	case OPT_CHILDREN:
		o->children = 1;
		return 0;
	case OPT_NO_INHERIT:
		o->no_inherit = 1;
		return 0;
	case OPT_CPU_EVENTS:
		o->cpu_events = 1;
		return 0;
	case OPT_OFF_CPU:
		o->off_cpu = 1;
		return 0;
	case OPT_WALL:
		o->wall = 1;
		return 0;
	case OPT_MIN_WAIT:
		o->min_wait_given = 1;
		return cli_uint(val, 0, UINT_MAX, &o->min_wait_us) ?
		       bad("bad --min-wait '%s' (microseconds)", val) : 0;
	case 'F':
		o->freq_given = 1;
		return cli_uint(val, VMSTACK_MIN_FREQ, VMSTACK_MAX_FREQ, &o->freq) ?
		       bad("-F takes 1.." XSTR(VMSTACK_MAX_FREQ) " Hz, not '%s'", val) : 0;
	case 'd':
		o->duration = strtod(val, &end);
		return *end || end == val || !(o->duration > 0) ?
		       bad("bad duration '%s'", val) : 0;
	case 'o':
		o->output = val;
		return 0;
	case OPT_SVG:
		o->svg = val;
		return 0;
	case OPT_FORMAT:
		o->format = vmstack_output_find(val);
		if (!o->format) {
			fprintf(stderr, TOOL ": unknown format '%s' (known: %s)\n", val,
				vmstack_output_names());
			return -1;
		}
		return 0;
	case OPT_NO_KERNEL:
		o->kernel = 0;
		return 0;
	case OPT_PER_THREAD:
		o->per_thread = 1;
		return 0;
	case OPT_LINES:
		o->lines = 1;
		return 0;
	case OPT_NO_DEMANGLE:
		o->no_demangle = 1;
		return 0;
	case 'e':
		o->event_given = 1;
		if (!strcmp(val, "cpu-clock"))
			o->event = VMSTACK_EVENT_CPU_CLOCK;
		else if (!strcmp(val, "cycles"))
			o->event = VMSTACK_EVENT_CYCLES;
		else
			return bad("unknown event '%s' (known: cpu-clock, cycles)", val);
		return 0;
	case OPT_UNWIND:
		if (strcmp(val, "cfi") && strcmp(val, "fp"))
			return bad("--unwind takes cfi or fp, not '%s'", val);
		o->cfi = !strcmp(val, "cfi");
		return 0;
	case OPT_MAX_DEPTH:
		return cli_uint(val, 1, VMSTACK_MAX_DEPTH, &o->max_depth) ?
		       bad("--max-depth takes 1.." XSTR(VMSTACK_MAX_DEPTH) ", not '%s'", val) : 0;
	case OPT_RING_PAGES:
		if (cli_uint(val, VMSTACK_MIN_RING_PAGES, VMSTACK_MAX_RING_PAGES,
			     &o->ring_pages) || (o->ring_pages & (o->ring_pages - 1)))
			return bad("--ring-pages takes a power of 2 in "
				   XSTR(VMSTACK_MIN_RING_PAGES) ".." XSTR(VMSTACK_MAX_RING_PAGES)
				   ", not '%s'", val);
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case OPT_STATS:
		o->stats = 1;
		return 0;
	case OPT_INVERTED:
		o->oo.inverted = 1;
		return 0;
	case OPT_RAW:
		o->raw = val;
		return 0;
	case OPT_EVERY:
		o->every = strtod(val, &end);
		return *end || end == val || !(o->every >= 1 && o->every <= 86400) ?
		       bad("--every takes 1..86400 seconds, not '%s'", val) : 0;
	case OPT_KEEP:
		return cli_uint(val, 1, INT_MAX, &o->keep) ? bad("bad --keep '%s'", val) : 0;
	case OPT_VM:
		o->vm_runtime = vmstack_runtime_find(val);
		if (!strcmp(val, "none")) {
			o->vm = VM_NONE;
		} else if (!strcmp(val, "auto")) {
			o->vm = VM_AUTO;
		} else if (o->vm_runtime && o->vm_runtime->detect) {
			o->vm = VM_RUNTIME;
		} else if (strchr(val, '/') || !access(val, F_OK)) {
			o->vm = VM_FILE;
			o->vm_file = val;
		} else {
			return bad("--vm takes auto, none, a runtime's name (see --help) or a descriptor file ('%s' is none of them)",
				   val);
		}
		return 0;
	}
	return -1;
}

int record_options_parse(int argc, char **argv, struct record_options *o)
{
	int first;

	*o = (struct record_options){ .freq = VMSTACK_DEFAULT_FREQ, .kernel = 1,
			       .max_depth = VMSTACK_DEFAULT_MAX_DEPTH,
			       .cfi = 1,
			       .vm = VM_AUTO, .event = VMSTACK_EVENT_CPU_CLOCK,
			       .min_wait_us = DEFAULT_MIN_WAIT_US };
	first = cli_parse(&record_cli, argc, argv, set_option, o);
	if (first < 0)
		return -1;
	if (first < argc)
		o->cmd = argv + first;
	if (!!o->npids + !!o->cmd + o->all + !!o->cgroup != 1) {
		fprintf(stderr, TOOL ": give one of -p PID, -a, --cgroup DIR and a command to run (see '"
			TOOL " --help')\n");
		return -1;
	}
	if (o->children && !o->cmd)
		return bad("%s", "--children follows a command's children: give -- COMMAND");
	if ((o->npids > 1 || o->all || o->cgroup || o->children) && o->raw)
		return bad("%s", "--raw keeps one process: give one -p PID with it");
	if (o->no_inherit && !o->npids)
		return bad("%s", "--no-inherit goes with -p");
	if (o->cpu_events && !o->npids)
		return bad("%s", "--cpu-events goes with -p");
	if (o->wall) {
		if (o->off_cpu)
			return bad("%s", "--wall shows the waits of --off-cpu and CPU samples: give one");
		if (o->event_given)
			return bad("%s", "--wall weighs CPU samples by time: cpu-clock, not -e");
		if (o->raw)
			return bad("%s", "--wall is not written to raw files (--raw) yet");
		o->event = VMSTACK_EVENT_WALL;
	} else if (o->off_cpu) {
		if (o->event_given || o->freq_given)
			return bad("%s", "--off-cpu records every context switch: not with -e or -F");
		if (o->raw)
			return bad("%s", "--off-cpu is not written to raw files (--raw) yet");
		o->event = VMSTACK_EVENT_SWITCHES;
	}
	if (o->min_wait_given && !o->off_cpu && !o->wall)
		return bad("%s", "--min-wait goes with --off-cpu or --wall");
	/* From here on: switch-outs are recorded and paired into waits. */
	o->off_cpu |= o->wall;
	/* A raw recording holds one process: its children are not followed. */
	o->follow = o->npids && !o->no_inherit && !o->raw;
	if (o->keep && !o->every)
		return bad("%s", "--keep goes with --every");
	if (o->every) {
		if (!o->output || !strcmp(o->output, "-"))
			return bad("%s", "--every writes into a directory: give -o DIR");
		if (o->raw || o->svg)
			return bad("%s", "--every writes one format per interval: not with --raw or --svg");
		if (!o->format)
			o->format = vmstack_output_find("pprof");
		return vmstack_output_refuses(o->format, &o->oo) ?
		       bad("%s", vmstack_output_refuses(o->format, &o->oo)) : 0;
	}
	if (!o->format && o->output)
		o->format = vmstack_output_for_path(o->output);
	if (!o->format)
		o->format = vmstack_outputs[0];
	/* -o's format, when it is written (with --svg alone it is not). */
	if ((o->output || !o->svg) && vmstack_output_refuses(o->format, &o->oo))
		return bad("%s", vmstack_output_refuses(o->format, &o->oo));
	return 0;
}
