// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-record: sample a process (or a command it starts) with vmstack.ko
 * and write its stacks, named, in one of the output formats.
 *
 * This file is the driver: options, the session, the recording loop and
 * the summary. A command held before exec is command.c; the target's VMs
 * vm/attach.c; naming symbols.c and profile.c; formats output/; the
 * module's protocol vmstack_nl.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "command.h"
#include "output/output.h"
#include "profile.h"
#include "raw_file.h"
#include "ring_reader.h"
#include "rotate.h"
#include "stacks.h"
#include "symbols.h"
#include "target.h"
#include "unwind/upload.h"
#include "util.h"
#include "vm/attach.h"
#include "vm/runtime.h"
#include "vmstack_nl.h"

#define TOOL "vmstack-record"
#define LOSS_WARN_PERCENT 2.0
#define XSTR(x) STR(x)
#define STR(x) #x

enum {
	OPT_FORMAT = CLI_LONG_ONLY, OPT_NO_KERNEL, OPT_PER_THREAD, OPT_UNWIND,
	OPT_MAX_DEPTH, OPT_RING_PAGES, OPT_VM, OPT_RAW, OPT_STATS, OPT_SVG, OPT_INVERTED,
	OPT_LINES, OPT_EVERY, OPT_KEEP, OPT_CGROUP, OPT_CHILDREN, OPT_NO_DEMANGLE,
};

static const struct cli_option options[] = {
	{ "pid", 'p', "PID[,PID...]", "profile these running processes (a thread ID\nselects its process)" },
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
	{ "unwind", OPT_UNWIND, "MODE", "user stacks by 'cfi' (default: rules from each\n"
	  "file's .eh_frame, frame pointers where it has none)\nor 'fp' (frame pointers only)" },
	{ "max-depth", OPT_MAX_DEPTH, "N", "frames per stack, kernel and user each; a VM's script frame counts\ntwo (default "
	  XSTR(VMSTACK_DEFAULT_MAX_DEPTH) ",\nmax " XSTR(VMSTACK_MAX_DEPTH) ")" },
	{ "ring-pages", OPT_RING_PAGES, "N", "ring buffer pages per CPU, a power of 2 (default "
	  XSTR(VMSTACK_DEFAULT_RING_PAGES) ")" },
	{ "quiet", 'q', NULL, "no status line" },
	{ "vm", OPT_VM, "MODE", "VM frames: 'auto' (default: every runtime below, and\n"
	  "what a VM registers with libvmstack in\n/tmp/vmstack-PID.vm), a runtime's name, 'none',\n"
	  "or a descriptor FILE (Documentation/vm-descriptor.md)" },
	{ "raw", OPT_RAW, "FILE", "also save the raw samples and mappings to FILE\n"
	  "(vmstack-report turns them into stacks later)" },
	{ "stats", OPT_STATS, NULL, "print the module's own cost: handler time per\n"
	  "sample (p50, p99, mean) and per frame" },
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

enum vm_mode { VM_NONE, VM_AUTO, VM_RUNTIME, VM_FILE };

/* Processes one recording may name with -p (the module takes more). */
#define MAX_PIDS 64

struct options {
	int pids[MAX_PIDS];	/* -p, or the command's */
	size_t npids;
	int all;		/* -a */
	int children;		/* --children */
	const char *cgroup;	/* --cgroup */
	char **cmd;
	unsigned int freq, event, max_depth, ring_pages;
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

static int bad(const char *fmt, const char *val)
{
	fprintf(stderr, TOOL ": ");
	fprintf(stderr, fmt, val);
	fputc('\n', stderr);
	return -1;
}

static int set_option(void *arg, int key, const char *val)
{
	struct options *o = arg;
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
	case 'F':
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

static int parse_args(int argc, char **argv, struct options *o)
{
	int first;

	*o = (struct options){ .freq = VMSTACK_DEFAULT_FREQ, .kernel = 1,
			       .max_depth = VMSTACK_DEFAULT_MAX_DEPTH,
			       .ring_pages = VMSTACK_DEFAULT_RING_PAGES, .cfi = 1,
			       .vm = VM_AUTO, .event = VMSTACK_EVENT_CPU_CLOCK };
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

static volatile sig_atomic_t stop_requested, rotate_requested;
/* --every: SIGHUP ends an interval; else it ends the recording (a hangup). */
static int hup_rotates;

static void on_signal(int sig)
{
	if (sig == SIGHUP && hup_rotates)
		rotate_requested = 1;
	else
		stop_requested = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct recording {
	const struct options *o;
	struct vmstack_nl *nl;
	struct vmstack_started sess;
	void *area;
	size_t area_size;
	struct vmstack_ring_view *rings;
	int ring_broken;
	struct vmstack_target *targets;	/* the processes sampled */
	size_t ntargets, nexited;
	/*
	 * -a, --cgroup: processes join as their first samples come (a free
	 * slot, pid -1, is reused once its process exited and its last
	 * interval is written); at most @cap of them.
	 */
	int whole;			/* also --children */
	size_t cap;
	struct pollfd *pfd;		/* wait_targets' */
	size_t *pfd_target;
	uint64_t undescribed;		/* samples walked with frame pointers only */
	size_t joined, not_described, untracked;
	int command_exited;
	/* Of processes started while recording: start to described (s). */
	double boot_started;		/* sampling's start, CLOCK_BOOTTIME */
	double *join_delay;
	size_t njoin_delay, capjoin_delay;
	struct vmstack_target *last;	/* of the last sample: most samples repeat it */
	struct vmstack_stacks stacks;
	struct vmstack_raw_buf raw;	/* every record, with --raw */
	struct vmstack_threads threads;	/* names of the threads sampled */
	uint64_t duration_ns;		/* sampling's wall time */
	/* --every: the interval under way. */
	struct vmstack_rotate rotate;
	double interval_start;
	double next_rotation;		/* on a grid from sampling's start */
	time_t interval_wall;		/* its start, for the file's name */
	uint64_t lost_before;		/* DROPPED when it started */
	uint64_t samples_before;	/* in the intervals written */
	unsigned int intervals;		/* profiles written */
	int older_module;		/* said that the module lacks a feature */
	struct vmstack_unwind_stats uw;	/* the mappings' unwind rules */
};

/* The module's name for a target: 0 for the first (every module knows it). */
static uint32_t module_pid(const struct recording *r, const struct vmstack_target *t)
{
	return t == r->targets && !r->whole ? 0 : (uint32_t)t->pid;
}

static int vm_add(void *arg, const struct vmstack_vm_desc *d, char *msg, size_t len)
{
	struct vmstack_target *t = arg;
	struct recording *r = t->owner;
	int err = vmstack_nl_vm_add(r->nl, r->sess.fd, module_pid(r, t), d, sizeof(*d),
				    msg, len);

	if (err == 1 && !r->older_module++)
		fprintf(stderr, TOOL ": the loaded vmstack.ko is of an older ABI minor: %s\n",
			msg);
	return err < 0 ? -1 : 0;
}

/* A new executable mapping: its VM, if any, and its unwind rules. */
static void on_new_map(void *arg, struct vmstack_map *m)
{
	struct vmstack_target *t = arg;
	struct recording *r = t->owner;

	/* Not in the module's set (-a: a kernel thread, or refused): names only. */
	if (!t->described)
		return;
	vmstack_vm_attach_map(&t->vms, m);
	if (r->o->cfi)
		vmstack_unwind_upload(r->nl, r->sess.fd, module_pid(r, t), m, &r->uw);
}

/* @t opened on @pid, with its VMs' callbacks; its mappings not read yet. */
static void open_target(struct recording *r, struct vmstack_target *t, int pid)
{
	const struct options *o = r->o;

	vmstack_target_open(t, pid, r);
	t->described = 1;
	t->vms = (struct vmstack_vm_attach){
		.tool = TOOL, .pid = t->pid, .sym = t->sym, .add = vm_add, .arg = t,
		.detect = o->vm == VM_AUTO || o->vm == VM_RUNTIME,
		.only = o->vm == VM_RUNTIME ? o->vm_runtime : NULL,
	};
	vmstack_symbolizer_on_new_map(t->sym, on_new_map, t);
}

static double boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --stats: how long a process started meanwhile ran before it was described. */
static void note_join_delay(struct recording *r, const struct vmstack_target *t)
{
	double started = t->described && r->o->stats ? vmstack_target_started(t->pid) : -1;

	if (started < r->boot_started || r->njoin_delay == 65536)
		return;
	if (r->njoin_delay == r->capjoin_delay) {
		r->capjoin_delay = r->capjoin_delay ? 2 * r->capjoin_delay : 64;
		r->join_delay = xrealloc(r->join_delay, r->capjoin_delay * sizeof(*r->join_delay));
	}
	r->join_delay[r->njoin_delay++] = boottime() - started;
}

/*
 * -a, --cgroup: a process seen for the first time (its first samples were
 * walked with frame pointers only) joins the module's set with its rules
 * and VMs, so the next are merged. A kernel thread, or a process the
 * module refuses, is named but not described. NULL when @cap are in use.
 */
static struct vmstack_target *join_target(struct recording *r, int pid)
{
	struct vmstack_target *t = NULL;
	char msg[256];
	size_t i;

	for (i = 0; i < r->ntargets && !t; i++)
		if (r->targets[i].pid < 0)
			t = &r->targets[i];
	if (!t && r->ntargets < r->cap)
		t = &r->targets[r->ntargets++];
	if (!t) {
		r->untracked++;
		return NULL;
	}
	open_target(r, t, pid);
	t->described = pid > 0 && !vmstack_nl_target_add(r->nl, r->sess.fd, (uint32_t)pid,
							  msg, sizeof(msg));
	r->joined++;
	r->not_described += !t->described;
	t->refreshed = t->changed = now();
	vmstack_symbolizer_refresh(t->sym);
	if (t->described && r->o->vm == VM_AUTO)
		vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
	note_join_delay(r, t);
	return t;
}

/* --cgroup's directory: a relative path is under the unified hierarchy's mount. */
static void cgroup_dir(const char *arg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", arg[0] == '/' ? "" : "/sys/fs/cgroup/", arg);
}

/* Is cgroup @cg (as /proc/PID/cgroup names it) @dir or below it? */
static int cgroup_within(const char *cg, const char *dir)
{
	size_t k = strlen(dir);

	return !strcmp(dir, "/") || (!strncmp(cg, dir, k) && (cg[k] == '/' || !cg[k]));
}

/*
 * -a, --cgroup: the processes on a CPU now are described before sampling
 * starts, so the busy ones have no samples walked with frame pointers
 * alone; the others join as their first samples come. Not every process
 * in /proc: an idle one would take module memory for nothing.
 */
static void join_running(struct recording *r)
{
	char want[4200] = "", real[PATH_MAX], cg[4200];
	static int pids[VMSTACK_MAX_TARGETS];
	size_t i, n = vmstack_procs_running(pids, r->cap);

	/* --cgroup: its path as /proc/PID/cgroup gives it. */
	if (r->o->cgroup) {
		cgroup_dir(r->o->cgroup, cg, sizeof(cg));
		if (!realpath(cg, real) || strncmp(real, "/sys/fs/cgroup", 14))
			return;
		snprintf(want, sizeof(want), "%s", real[14] ? real + 14 : "/");
	}
	for (i = 0; i < n; i++) {
		if (pids[i] == getpid() ||
		    (*want && (vmstack_target_cgroup(pids[i], cg, sizeof(cg)) ||
			       !cgroup_within(cg, want))))
			continue;
		if (!vmstack_target_find(r->targets, r->ntargets, pids[i]))
			join_target(r, pids[i]);
	}
}

/*
 * -a, --cgroup: the targets that exited, once their last samples are
 * named (an interval written): their slots are free for new processes.
 */
static void reap_targets(struct recording *r)
{
	size_t i;

	for (i = 0; i < r->ntargets; i++) {
		struct vmstack_target *t = &r->targets[i];

		if (t->pid < 0 || !t->exited)
			continue;
		if (r->last == t)
			r->last = NULL;
		vmstack_target_close(t);
		r->nexited--;
	}
}

static void on_sample(const struct vmstack_rec_sample *rec, void *arg)
{
	struct recording *r = arg;
	const struct vmstack_frame *f;
	struct vmstack_target *t;
	unsigned int i;

	/* Thread names: for --per-thread's labels and raw files only. */
	if (r->o->per_thread || r->o->raw)
		vmstack_threads_note(&r->threads, (int)rec->pid, rec->tid);
	r->undescribed += !!(rec->hdr.flags & VMSTACK_SF_UNDESCRIBED);
	if (r->o->raw)
		vmstack_raw_append(&r->raw, rec);
	/*
	 * A stack seen before was looked at then: its VM words are named
	 * and its mappings known or looked for. A new one: VM objects may
	 * be freed soon, so name its VM frames now; code in a mapping not
	 * read yet (dlopen) should have its unwind rules reach the module
	 * now, not at the next periodic refresh.
	 */
	if (!vmstack_stacks_add(&r->stacks, rec))
		return;
	t = r->last && r->last->pid == (int)rec->pid ? r->last :
	    vmstack_target_find(r->targets, r->ntargets, (int)rec->pid);
	/* Else the module samples only targets: a number it gave is one. */
	if (!t && r->whole)
		t = join_target(r, (int)rec->pid);
	if (!t)
		return;
	r->last = t;
	for (i = 0, f = r->stacks.added->frames; i < r->stacks.added->nframes; i++, f++)
		if (vmstack_frame_is_vm(f->kind))
			vmstack_symbolizer_note_vm(t->sym, f);
		else if (f->kind == VMSTACK_FRAME_NATIVE && !t->maps_stale &&
			 !vmstack_symbolizer_knows(t->sym, f->value))
			t->maps_stale = 1;
}

static void drain(struct recording *r)
{
	unsigned int cpu;

	for (cpu = 0; cpu < r->sess.nr_cpus; cpu++)
		if (vmstack_ring_drain(&r->rings[cpu], on_sample, r) < 0 &&
		    !r->ring_broken) {
			r->ring_broken = 1;
			fprintf(stderr, TOOL ": ring of CPU %u is corrupt; its samples are lost\n",
				cpu);
		}
}

/* Every CPU's counters added up; the handler histogram if @hist. */
static void sum_counts(struct recording *r, struct vmstack_cpu_counts *sum,
		       uint64_t *hist)
{
	char msg[256];

	if (vmstack_nl_session_stats(r->nl, r->sess.fd, sum, hist, msg, sizeof(msg)))
		memset(sum, 0, sizeof(*sum));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value below which a fraction q of the samples fall. */
static uint64_t hist_quantile(const uint64_t *hist, double q)
{
	uint64_t total = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++)
		total += hist[b];
	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (total && seen >= q * total)
			return vmstack_hist_lower(b);
	}
	return 0;
}

static void print_cost(const struct recording *r, const struct vmstack_cpu_counts *c,
		       const uint64_t *hist)
{
	uint64_t taken = VMSTACK_CNT(c, TAKEN), written = VMSTACK_CNT(c, WRITTEN);
	double mean = taken ? (double)VMSTACK_CNT(c, HANDLER_NS) / taken : 0;
	double fps = written ? (double)VMSTACK_CNT(c, FRAMES) / written : 0;

	fprintf(stderr, TOOL ": handler: p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, max %" PRIu64
		" ns, mean %.0f ns; %.1f frames/sample, %.1f ns/frame\n",
		hist_quantile(hist, 0.5), hist_quantile(hist, 0.99), hist_quantile(hist, 1.0),
		mean, fps, fps ? mean / fps : 0);
	fprintf(stderr, TOOL ": unwind rules: %zu mappings (%zu of them rows another process uploaded), %zu rows sent, %" PRIu64
		" bytes in the module; %" PRIu64 " lookups, %.1f%% from the per-CPU cache\n",
		r->uw.maps, r->uw.shared, r->uw.rows, r->uw.bytes, VMSTACK_CNT(c, UW_LOOKUPS),
		VMSTACK_CNT(c, UW_LOOKUPS) ?
		100.0 * VMSTACK_CNT(c, UW_HITS) / VMSTACK_CNT(c, UW_LOOKUPS) : 0.0);
	if (r->njoin_delay) {
		double *d = r->join_delay;
		size_t n = r->njoin_delay;

		qsort(d, n, sizeof(*d), cmp_double);
		fprintf(stderr, TOOL ": %zu processes started while recording were described %.0f ms (median; max %.0f ms) after they started (1/%ld s steps)\n",
			n, 1e3 * d[n / 2], 1e3 * d[n - 1], sysconf(_SC_CLK_TCK));
	}
	fprintf(stderr, TOOL ": events: %s; %" PRIu64 " interrupts taken, %" PRIu64
		" of them in the target\n", r->sess.task_events ?
		(r->o->children ? "one on the command, inherited by its threads and child processes" : "one on the target, inherited by its threads") : "one per CPU, filtered by process",
		VMSTACK_CNT(c, TAKEN) + VMSTACK_CNT(c, OTHER), VMSTACK_CNT(c, TAKEN));
}

static void summary(const struct recording *r, const struct vmstack_cpu_counts *c,
		    const uint64_t *hist)
{
	uint64_t taken = VMSTACK_CNT(c, TAKEN), dropped = VMSTACK_CNT(c, DROPPED);
	double lost = taken ? 100.0 * dropped / taken : 0.0;
	double ring_lost = taken ? 100.0 * (dropped - VMSTACK_CNT(c, THROTTLED)) / taken : 0.0;
	const struct vmstack_target *t;
	int vms = 0;

	if (r->o->every)
		fprintf(stderr, TOOL ": %" PRIu64 " samples, %" PRIu64 " lost (%.2f%%), in %u profiles in %s",
			r->samples_before, dropped, lost, r->intervals, r->o->output);
	else
		fprintf(stderr, TOOL ": %" PRIu64 " samples, %" PRIu64 " lost (%.2f%%), %zu distinct stacks",
			r->stacks.samples, dropped, lost, r->stacks.n);
	for (t = r->targets; t < r->targets + r->ntargets; t++) {
		if (t->pid < 0 || !t->vms.n)
			continue;
		/* A whole machine's list would not fit a line: a count. */
		if (r->whole && r->ntargets > 8) {
			vms++;
			continue;
		}
		if (r->ntargets == 1)
			fprintf(stderr, "; VM frames merged (%s)", t->vms.label);
		else
			fprintf(stderr, "%s %s (%d): %s", vms ? "," : "; VM frames merged:",
				t->comm, t->pid, t->vms.label);
		vms++;
	}
	if (vms && r->whole && r->ntargets > 8)
		fprintf(stderr, "; VM frames merged in %d processes", vms);
	if (vms)
		fprintf(stderr, "; %" PRIu64 " VM stacks cut by bad VM data",
			VMSTACK_CNT(c, VM_ERRORS));
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
	if (r->whole)
		fprintf(stderr, TOOL ": %zu processes seen, %zu of them not described (kernel threads, idle, refused), %zu beyond the %zu the recorder holds; %" PRIu64
			" samples walked with frame pointers only (before their process was described, or never)\n",
			r->joined + r->untracked, r->not_described, r->untracked, r->cap,
			r->undescribed);
	if (VMSTACK_CNT(c, THROTTLED))
		fprintf(stderr, TOOL ": %" PRIu64 " of the lost samples were dropped because the handler took over %d%% of a CPU: lower -F or --max-depth\n",
			VMSTACK_CNT(c, THROTTLED), VMSTACK_HANDLER_MAX_PERCENT);
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
	if (!r->stacks.samples && !r->samples_before)
		fprintf(stderr, TOOL ": warning: no samples (did the target run on a CPU?)\n");
}

/* "-" for standard output, as NULL. */
static const char *out_path(const char *path)
{
	return path && strcmp(path, "-") ? path : NULL;
}

/* The stacks so far, named: each process's with its own names. */
static void name_profile(struct recording *r, struct vmstack_profile *p, uint64_t lost,
			 uint64_t duration_ns)
{
	const struct options *o = r->o;
	size_t i;

	vmstack_profile_init(p);
	/* Roots tell the processes apart. */
	for (i = 0; i < r->ntargets; i++) {
		const struct vmstack_target *t = &r->targets[i];

		if (t->pid < 0)
			continue;
		vmstack_profile_name(p, &r->stacks, t->sym, &(struct vmstack_name_opts){
			.comm = t->comm, .cgroup = t->cgroup, .one_pid = 1,
			.pid = (uint32_t)t->pid, .root_pid = r->ntargets > 1 || r->whole,
			.per_thread = o->per_thread, .threads = &r->threads,
			.lines = o->lines, .no_demangle = o->no_demangle });
	}
	p->lost = lost;
	p->freq = r->sess.freq;
	p->duration_ns = duration_ns;
}

/* --every: write the interval under way, then start the next. */
static int write_interval(struct recording *r)
{
	struct vmstack_cpu_counts c;
	struct vmstack_profile p;
	double at = now();
	uint64_t lost;
	int err;

	sum_counts(r, &c, NULL);
	lost = VMSTACK_CNT(&c, DROPPED) - r->lost_before;
	name_profile(r, &p, lost, (uint64_t)((at - r->interval_start) * 1e9));
	err = vmstack_rotate_write(&r->rotate, &p, &r->o->oo, r->interval_wall);
	if (!err && !r->o->quiet)
		fprintf(stderr, TOOL ": %s: %" PRIu64 " samples, %zu stacks, %" PRIu64 " lost\n",
			r->rotate.last, p.samples, p.nstacks, lost);
	r->intervals += !err;
	vmstack_profile_free(&p);
	/* The next interval starts empty: memory stays flat however long. */
	r->samples_before += r->stacks.samples;
	vmstack_stacks_free(&r->stacks);
	vmstack_stacks_init(&r->stacks, r->o->per_thread);
	vmstack_threads_free(&r->threads);
	vmstack_threads_init(&r->threads);
	r->lost_before = VMSTACK_CNT(&c, DROPPED);
	r->interval_start = at;
	r->interval_wall = time(NULL);
	if (r->whole)
		reap_targets(r);
	return err;
}

static int write_output(struct recording *r, uint64_t lost)
{
	const struct options *o = r->o;
	struct vmstack_profile p;
	int err = 0;

	name_profile(r, &p, lost, r->duration_ns);
	if (o->output || !o->svg)
		err = vmstack_output_to_path(o->format, &p, &o->oo, out_path(o->output), TOOL);
	if (o->svg && vmstack_output_to_path(vmstack_output_find("svg"), &p, &o->oo,
					     out_path(o->svg), TOOL))
		err = -1;
	vmstack_profile_free(&p);
	return err;
}

/*
 * Wait up to @ms for a target to exit; note those that did. A target
 * without a pidfd (an old kernel) is looked at with kill(pid, 0).
 */
static void wait_targets(struct recording *r, int ms)
{
	nfds_t n = 0, j;
	size_t i;

	for (i = 0; i < r->ntargets; i++)
		if (!r->targets[i].exited && r->targets[i].pidfd >= 0) {
			r->pfd_target[n] = i;
			r->pfd[n++] = (struct pollfd){ .fd = r->targets[i].pidfd, .events = POLLIN };
		}
	if (n)
		poll(r->pfd, n, ms);
	else
		usleep((useconds_t)ms * 1000);
	/* A readable pidfd: its process exited. Those without one: kill(pid, 0). */
	for (j = 0; j < n; j++)
		if (r->pfd[j].revents)
			r->targets[r->pfd_target[j]].exited = 1;
	for (i = 0; i < r->ntargets; i++) {
		struct vmstack_target *t = &r->targets[i];
		char msg[256];

		if (t->pid <= 0 || t->counted_exit ||
		    !(t->exited || (t->pidfd < 0 && vmstack_target_gone(t))))
			continue;
		t->counted_exit = 1;
		r->nexited++;
		r->command_exited |= r->o->cmd && t == r->targets;
		/* Its rules and VMs are freed now, not at the end (not the first: 3.3). */
		if (t->described && module_pid(r, t))
			vmstack_nl_target_del(r->nl, r->sess.fd, (uint32_t)t->pid, msg, sizeof(msg));
	}
}

/*
 * A target's new libraries (dlopen) and changed name (exec): each second,
 * every 10 ms for half a second after a new mapping (@since_change), while
 * a dynamic loader maps libraries, and within 50 ms of a sample in code of
 * a mapping not read yet. Returns 1 if a mapping was new.
 */
static int refresh_target(struct recording *r, struct vmstack_target *t, double since_change)
{
	double at = now();

	/*
	 * -a, --cgroup: no reading of every process each second, only of
	 * those whose samples or own new mappings ask for it.
	 */
	if (r->whole && at - t->changed >= 0.5 && !t->maps_stale)
		return 0;
	if (t->pid <= 0 || t->exited ||
	    at - t->refreshed < (since_change < 0.5 ? 0.0 : t->maps_stale ? 0.05 : 1.0))
		return 0;
	t->refreshed = at;
	t->maps_stale = 0;
	if (r->o->vm == VM_AUTO && t->described)
		vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
	vmstack_target_read_comm(t);
	if (vmstack_symbolizer_refresh(t->sym) <= 0)
		return 0;
	t->changed = at;
	return 1;
}

/* The targets exited: -p's all, a command (its children or not); never -a. */
static int recording_done(const struct recording *r)
{
	if (r->o->all || r->o->cgroup)
		return 0;
	if (r->o->children)
		return r->command_exited;
	return r->nexited == r->ntargets;
}

/* Drain, refresh and report until the targets exit, time is up or Ctrl-C. */
static void record_loop(struct recording *r)
{
	const struct options *o = r->o;
	int show = !o->quiet && isatty(STDERR_FILENO), period_ms;
	double t0, last_status, last_change;
	struct vmstack_cpu_counts c;
	size_t i;

	/*
	 * Wake often enough to drain a ring at a quarter full, assuming 100
	 * bytes a sample, within 10..100 ms: fewer wake-ups at low rates.
	 */
	period_ms = (int)((double)r->sess.ring_pages * sysconf(_SC_PAGESIZE) /
			  (r->sess.freq * 100.0) / 4 * 1000);
	period_ms = period_ms < 10 ? 10 : period_ms > 100 ? 100 : period_ms;
	t0 = last_status = last_change = now();
	/* Intervals and -d count from here (the first also holds the setup's samples). */
	r->next_rotation = t0 + o->every;
	while (!stop_requested && !recording_done(r)) {
		int changed = 0;

		/* Every 10 ms while a loader maps libraries (refresh_target). */
		wait_targets(r, now() - last_change < 0.5 ? 10 : period_ms);
		drain(r);
		if (o->duration && now() - t0 >= o->duration)
			break;
		if (o->every && (rotate_requested || now() >= r->next_rotation)) {
			rotate_requested = 0;
			write_interval(r);
			/*
			 * Boundaries stay on the grid (a late wake-up does not
			 * push the next one later, so -d 60 --every 10 gives six
			 * whole intervals); a SIGHUP's interval ends early and
			 * the next ends on the grid; a recorder stopped for
			 * longer than an interval starts a new grid.
			 */
			if (r->next_rotation <= r->interval_start)
				r->next_rotation += o->every;
			if (r->next_rotation <= r->interval_start)
				r->next_rotation = r->interval_start + o->every;
		}
		for (i = 0; i < r->ntargets; i++)
			changed |= refresh_target(r, &r->targets[i],
						  now() - (r->whole ? r->targets[i].changed : last_change));
		if (changed)
			last_change = now();
		if (show && now() - last_status >= 1.0) {
			last_status = now();
			sum_counts(r, &c, NULL);
			fprintf(stderr, "\r" TOOL ": %" PRIu64 " samples, %" PRIu64 " lost   ",
				r->samples_before + r->stacks.samples, VMSTACK_CNT(&c, DROPPED));
		}
	}
	if (show)
		fputc('\n', stderr);
}

/*
 * The other -p processes join the session: each needs the same right to
 * be read as the first, and a module of ABI 3.4 or later.
 */
static int add_targets(struct recording *r)
{
	char msg[256];
	size_t i;
	int err;

	for (i = 1; i < r->o->npids; i++) {
		err = vmstack_nl_target_add(r->nl, r->sess.fd, (uint32_t)r->o->pids[i],
					    msg, sizeof(msg));
		if (err) {
			fprintf(stderr, TOOL ": PID %d: %s\n", r->o->pids[i], msg);
			return -1;
		}
	}
	return 0;
}

/*
 * kernel.perf_event_max_sample_rate, 0 if it cannot be read. perf's tool
 * lowers its rate to it as perf_event_open() refuses a higher one; the
 * module's events are held to it by perf's throttle, per tick.
 */
static unsigned int max_sample_rate(void)
{
	char *text = read_file("/proc/sys/kernel/perf_event_max_sample_rate", 32);
	unsigned long v = text ? strtoul(text, NULL, 10) : 0;

	free(text);
	return v > UINT_MAX ? 0 : (unsigned int)v;
}

/* A session on the targets, its rings mapped. 0, or -1 (said why). */
static int start_session(struct recording *r)
{
	const struct options *o = r->o;
	struct vmstack_start_req req = {
		.pid = (uint32_t)o->pids[0], .all = o->all, .children = o->children, .freq = o->freq, .event = o->event,
		.stacks = o->kernel ? VMSTACK_STACK_ALL : VMSTACK_STACK_USER,
		.max_depth = o->max_depth, .ring_pages = o->ring_pages,
		/* Unwind rules first, then samples. */
		.paused = 1,
		/*
		 * A command is one thread held before exec until sampling
		 * starts: one event its threads inherit, so CPUs where it
		 * does not run take no interrupts (a running process gets one
		 * event per CPU: its threads cannot be caught without a race).
		 */
		.task_events = o->cmd != NULL,
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char msg[256], path[4096];
	unsigned int max_rate;
	int err;

	if (o->cgroup) {
		cgroup_dir(o->cgroup, path, sizeof(path));
		req.cgroup = 1;
		req.cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (req.cgroup_fd < 0) {
			fprintf(stderr, TOOL ": cannot open cgroup %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	max_rate = max_sample_rate();
	if (max_rate && req.freq > max_rate)
		req.freq = max_rate;
	err = vmstack_nl_session_start(r->nl, &req, &r->sess, msg, sizeof(msg));
	if (o->cgroup)
		close(req.cgroup_fd);
	if (err == -EPERM)
		fprintf(stderr, TOOL ": permission denied: %s (run as root)\n", msg);
	else if (err == -ESRCH)
		fprintf(stderr, TOOL ": PID %d: %s\n", o->pids[0], msg);
	else if (err)
		fprintf(stderr, TOOL ": cannot start a session: %s\n", msg);
	if (err || add_targets(r))
		return -1;
	if (r->sess.freq < o->freq)
		fprintf(stderr, TOOL ": -F %u is above kernel.perf_event_max_sample_rate: sampling at %u Hz\n",
			o->freq, r->sess.freq);
	r->area_size = (size_t)r->sess.nr_cpus * (r->sess.ring_pages + 1) * page;
	r->area = mmap(NULL, r->area_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->sess.fd, 0);
	if (r->area == MAP_FAILED) {
		r->area = NULL;
		fprintf(stderr, TOOL ": cannot map the ring buffers: %s\n", strerror(errno));
		return -1;
	}
	r->rings = xcalloc(r->sess.nr_cpus, sizeof(*r->rings));
	vmstack_ring_views(r->area, r->sess.nr_cpus, r->sess.ring_pages, page, r->rings);
	return 0;
}

/*
 * -a, --cgroup: room for as many processes as the module takes, each with
 * a pidfd: the soft limit on open files is raised to the hard one, and the
 * processes beyond what it allows are named by number only (counted).
 */
static size_t whole_capacity(void)
{
	struct rlimit rl;
	size_t cap = VMSTACK_MAX_TARGETS;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 256;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	/* Room for the files symbols are read from, and ours. */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < cap + 512)
		cap = rl.rlim_cur > 768 ? (size_t)rl.rlim_cur - 512 : 256;
	return cap;
}

/* Each target's symbolizer, VMs and mappings; a command's maps come later. */
static void open_targets(struct recording *r)
{
	const struct options *o = r->o;
	size_t i;

	r->whole = o->all || o->cgroup || o->children;
	/* --children: the command is the first, its children join. */
	r->ntargets = o->all || o->cgroup ? 0 : o->npids;
	r->cap = r->whole ? whole_capacity() : o->npids;
	r->targets = xcalloc(r->cap, sizeof(*r->targets));
	r->pfd = xcalloc(r->cap, sizeof(*r->pfd));
	r->pfd_target = xcalloc(r->cap, sizeof(*r->pfd_target));
	for (i = 0; i < r->ntargets; i++) {
		struct vmstack_target *t = &r->targets[i];

		open_target(r, t, o->pids[i]);
		if (!o->cmd)
			vmstack_symbolizer_refresh(t->sym);
	}
}

/* The first target's raw recording (--raw: one target). */
static int write_raw(struct recording *r, const struct vmstack_cpu_counts *c)
{
	const struct vmstack_target *t = &r->targets[0];
	struct vmstack_raw_head head = { .pid = t->pid, .freq = r->sess.freq,
		.lost = VMSTACK_CNT(c, DROPPED), .duration_ns = r->duration_ns };

	snprintf(head.comm, sizeof(head.comm), "%s", t->comm);
	if (vmstack_raw_write(r->o->raw, &head, t->sym, &r->threads, &r->raw)) {
		fprintf(stderr, TOOL ": cannot write %s: %s\n", r->o->raw, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t hist[VMSTACK_HIST_BUCKETS];
	struct vmstack_command cmd = { .pid = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct recording r = { .sess.fd = -1 };
	struct vmstack_cpu_counts c;
	int err = -1, running = 0, status;
	double started;			/* sampling began */
	struct options o;
	char msg[256];
	size_t i;

	if (parse_args(argc, argv, &o))
		return 2;
	r.o = &o;
	if (vmstack_nl_connect(&r.nl, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": %s\n", msg);
		return 1;
	}
	if (o.cmd) {
		if (vmstack_command_start(o.cmd, &cmd)) {
			fprintf(stderr, TOOL ": cannot start %s: %s\n", o.cmd[0],
				strerror(errno));
			goto out;
		}
		o.pids[0] = cmd.pid;
		o.npids = 1;
	}
	for (i = 0; i < o.npids; i++)
		if (kill(o.pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, TOOL ": no process with PID %d\n", o.pids[i]);
			goto out;
		}
	r.rotate = (struct vmstack_rotate){ .dir = o.output, .format = o.format,
		.keep = o.keep, .tool = TOOL };
	if (o.every && vmstack_rotate_open(&r.rotate))
		goto out;
	if (start_session(&r))
		goto out;
	vmstack_stacks_init(&r.stacks, o.per_thread);
	vmstack_threads_init(&r.threads);
	open_targets(&r);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hup_rotates = o.every > 0;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A command's maps are read once it has run exec, below. */
	if (o.cmd && o.cfi)
		vmstack_command_prewarm(r.targets[0].sym, o.cmd[0]);
	r.boot_started = boottime();
	if (o.all || o.cgroup)
		join_running(&r);
	/* Descriptors from a file: in place before the first sample. */
	for (i = 0; i < r.ntargets; i++)
		if (o.vm == VM_FILE && vmstack_vm_attach_text(&r.targets[i].vms, o.vm_file, 0))
			goto out;
	if (vmstack_nl_session_resume(r.nl, r.sess.fd, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": cannot start sampling: %s\n", msg);
		goto out;
	}
	started = r.interval_start = now();
	r.interval_wall = time(NULL);
	if (o.cmd) {
		err = vmstack_command_release(&cmd);
		if (err) {
			fprintf(stderr, TOOL ": cannot run %s: %s\n", o.cmd[0], strerror(err));
			err = -1;
			goto out;
		}
		running = 1;
	}
	for (i = 0; i < r.ntargets; i++) {
		struct vmstack_target *t = &r.targets[i];

		/* A command's exec and loader come next: read often for a while. */
		t->refreshed = t->changed = now();
		vmstack_symbolizer_refresh(t->sym);
		if (o.vm == VM_AUTO)
			vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
		vmstack_target_read_comm(t);
	}

	record_loop(&r);
	vmstack_nl_session_stop(r.nl, r.sess.fd, msg, sizeof(msg));
	r.duration_ns = (uint64_t)((now() - started) * 1e9);
	drain(&r);
	sum_counts(&r, &c, hist);
	for (i = 0; i < r.ntargets; i++)
		if (r.targets[i].pid >= 0)
			vmstack_symbolizer_load_perf_map(r.targets[i].sym);
	err = o.every ? write_interval(&r) : write_output(&r, VMSTACK_CNT(&c, DROPPED));
	if (o.raw && write_raw(&r, &c))
		err = -1;
	summary(&r, &c, hist);

out:
	/* A command we started: ended if it still runs, reaped either way. */
	if (cmd.pid > 0) {
		if (!r.nexited)
			kill(cmd.pid, running ? SIGTERM : SIGKILL);
		waitpid(cmd.pid, &status, 0);
	}
	if (r.area)
		munmap(r.area, r.area_size);
	if (r.sess.fd >= 0)
		close(r.sess.fd);
	vmstack_nl_close(r.nl);
	for (i = 0; i < r.ntargets; i++)
		vmstack_target_close(&r.targets[i]);
	free(r.targets);
	free(r.pfd);
	free(r.pfd_target);
	free(r.join_delay);
	if (r.stacks.slots)
		vmstack_stacks_free(&r.stacks);
	free(r.raw.data);
	vmstack_threads_free(&r.threads);
	free(r.rings);
	return err ? 1 : 0;
}
