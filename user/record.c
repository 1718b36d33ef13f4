// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-record: sample a process (or a command it starts) with vmstack.ko
 * and write its stacks, named, in collapsed form.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fold.h"
#include "needed.h"
#include "raw_file.h"
#include "ring_reader.h"
#include "stacks.h"
#include "symbols.h"
#include "util.h"
#include "vm_file.h"
#include "vm_lua54.h"
#include "vm_luajit.h"
#include "vmstack_nl.h"

#define TOOL "vmstack-record"
#define LOSS_WARN_PERCENT 2.0

struct options {
	int pid;
	char **cmd;
	unsigned freq;
	double duration;
	const char *output;
	int kernel;
	int per_thread;
	unsigned event;
	unsigned max_depth;
	unsigned ring_pages;
	int quiet;
	int stats;
	const char *raw;
	int cfi;
	int vm;		/* enum vm_mode: which VM frames to merge */
	const char *vm_file;	/* VM_FILE: a descriptor file */
};

enum vm_mode {
	VM_NONE,
	VM_AUTO,	/* known runtimes, and what a VM registers itself */
	VM_LUAJIT,
	VM_LUA54,
	VM_FILE,
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: " TOOL " -p PID [options]\n"
"       " TOOL " [options] -- COMMAND [ARGS...]\n"
"Sample every thread of a process with vmstack.ko and write collapsed stacks\n"
"(root first, 'a;b;c COUNT'), kernel frames marked _[k], VM frames _[vm],\n"
"JIT-compiled VM code _[j].\n"
"\n"
"  -p, --pid PID         profile this running process (a thread ID selects\n"
"                        its process)\n"
"  -F, --freq HZ         samples per second per CPU (default 999, max %d)\n"
"  -d, --duration SECS   stop after SECS seconds (default: until the target\n"
"                        exits or Ctrl-C)\n"
"  -o, --output FILE     write the stacks to FILE (default: standard output)\n"
"      --format folded   output format (only 'folded' so far)\n"
"      --no-kernel       user stacks only\n"
"      --per-thread      one root frame per thread (COMM/TID)\n"
"  -e, --event EVENT     cpu-clock (default) or cycles (needs a PMU)\n"
"      --unwind MODE     user stacks by 'cfi' (default: rules from each\n"
"                        file's .eh_frame, frame pointers where it has none)\n"
"                        or 'fp' (frame pointers only)\n"
"      --max-depth N     frames per stack, kernel and user each (default 128,\n"
"                        max %d)\n"
"      --ring-pages N    ring buffer pages per CPU, a power of 2 (default 64)\n"
"  -q, --quiet           no status line\n"
"      --vm MODE         VM frames: 'auto' (default: detect LuaJIT and Lua 5.4\n"
"                        from the target's mappings, and read what a VM\n"
"                        registers with libvmstack in /tmp/vmstack-PID.vm),\n"
"                        'luajit', 'lua5.4', 'none', or a descriptor FILE\n"
"                        (Documentation/vm-descriptor.md)\n"
"      --raw FILE        also save the raw samples and mappings to FILE\n"
"                        (vmstack-report turns them into stacks later)\n"
"      --stats           print the module's own cost: handler time per\n"
"                        sample (p50, p99, mean) and per frame\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0 on success, 1 on a runtime error, 2 on a usage error.\n",
		VMSTACK_MAX_FREQ, VMSTACK_MAX_DEPTH);
}

static int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "freq", required_argument, NULL, 'F' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-kernel", no_argument, NULL, 'K' },
		{ "per-thread", no_argument, NULL, 'T' },
		{ "event", required_argument, NULL, 'e' },
		{ "max-depth", required_argument, NULL, 'D' },
		{ "ring-pages", required_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 'S' },
		{ "raw", required_argument, NULL, 'W' },
		{ "unwind", required_argument, NULL, 'U' },
		{ "vm", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned v;
	char *end;
	int c;

	*o = (struct options){ .freq = 999, .kernel = 1, .max_depth = 128,
			       .ring_pages = 64, .cfi = 1, .vm = VM_AUTO,
			       .event = VMSTACK_EVENT_CPU_CLOCK };
	while ((c = getopt_long(argc, argv, "+p:F:d:o:e:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_uint(optarg, 1, INT_MAX, &v)) {
				fprintf(stderr, TOOL ": bad PID '%s'\n", optarg);
				return -1;
			}
			o->pid = (int)v;
			break;
		case 'F':
			if (parse_uint(optarg, VMSTACK_MIN_FREQ, VMSTACK_MAX_FREQ,
				       &o->freq)) {
				fprintf(stderr, TOOL ": -F takes 1..%d Hz\n",
					VMSTACK_MAX_FREQ);
				return -1;
			}
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || !(o->duration > 0)) {
				fprintf(stderr, TOOL ": bad duration '%s'\n", optarg);
				return -1;
			}
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "folded")) {
				fprintf(stderr, TOOL ": unknown format '%s' (known: folded)\n",
					optarg);
				return -1;
			}
			break;
		case 'K':
			o->kernel = 0;
			break;
		case 'T':
			o->per_thread = 1;
			break;
		case 'e':
			if (!strcmp(optarg, "cpu-clock")) {
				o->event = VMSTACK_EVENT_CPU_CLOCK;
			} else if (!strcmp(optarg, "cycles")) {
				o->event = VMSTACK_EVENT_CYCLES;
			} else {
				fprintf(stderr, TOOL ": unknown event '%s' (known: cpu-clock, cycles)\n",
					optarg);
				return -1;
			}
			break;
		case 'D':
			if (parse_uint(optarg, 1, VMSTACK_MAX_DEPTH, &o->max_depth)) {
				fprintf(stderr, TOOL ": --max-depth takes 1..%d\n",
					VMSTACK_MAX_DEPTH);
				return -1;
			}
			break;
		case 'R':
			if (parse_uint(optarg, VMSTACK_MIN_RING_PAGES,
				       VMSTACK_MAX_RING_PAGES, &o->ring_pages) ||
			    (o->ring_pages & (o->ring_pages - 1))) {
				fprintf(stderr, TOOL ": --ring-pages takes a power of 2 in %d..%d\n",
					VMSTACK_MIN_RING_PAGES, VMSTACK_MAX_RING_PAGES);
				return -1;
			}
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'S':
			o->stats = 1;
			break;
		case 'W':
			o->raw = optarg;
			break;
		case 'V':
			if (!strcmp(optarg, "none")) {
				o->vm = VM_NONE;
			} else if (!strcmp(optarg, "auto")) {
				o->vm = VM_AUTO;
			} else if (!strcmp(optarg, "luajit")) {
				o->vm = VM_LUAJIT;
			} else if (!strcmp(optarg, "lua5.4")) {
				o->vm = VM_LUA54;
			} else if (strchr(optarg, '/') || !access(optarg, F_OK)) {
				o->vm = VM_FILE;
				o->vm_file = optarg;
			} else {
				fprintf(stderr, TOOL ": --vm takes auto, luajit, lua5.4, none or a descriptor file ('%s' is none of them)\n",
					optarg);
				return -1;
			}
			break;
		case 'U':
			if (strcmp(optarg, "cfi") && strcmp(optarg, "fp")) {
				fprintf(stderr, TOOL ": --unwind takes cfi or fp\n");
				return -1;
			}
			o->cfi = !strcmp(optarg, "cfi");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->pid == !o->cmd) {
		fprintf(stderr, TOOL ": give either -p PID or a command to run\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/*
 * A command held before exec on a pipe, so sampling covers it from exec.
 * A second pipe, closed by a successful exec, brings back exec's errno.
 */
struct command {
	pid_t pid;
	int go_fd;
	int err_fd;
};

static int start_command(char **cmd, struct command *c)
{
	int go[2], err[2];
	char byte;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(go[1]);
		close(err[0]);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		byte = (char)errno;
		if (write(err[1], &byte, 1) != 1)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

/* Let the command exec; 0 once it has, else its errno. */
static int release_command(struct command *c)
{
	char byte = 0;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		return EPIPE;
	close(c->go_fd);
	n = read(c->err_fd, &byte, 1);
	close(c->err_fd);
	return n == 1 ? (byte ? byte : ENOEXEC) : 0;
}

/* Where execvp will find @cmd, or NULL. */
static char *find_in_path(const char *cmd)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	return find_in_dirs(path ? path : "/usr/bin:/bin", cmd, X_OK);
}

/*
 * Before a command starts: read the symbols and unwind rules of its
 * executable, of the C library and loader (which it will map, as we do)
 * and of the libraries it names, so that its first samples already have
 * rules: reading them once mapped took 35-65 ms a library under TCG, and
 * the C library's rules waited behind them.
 */
static void prewarm(struct vmstack_symbolizer *sym, const char *cmd)
{
	char *exe = find_in_path(cmd), line[4200], dirs[8192], *libs[64];
	const char *ld_path = getenv("LD_LIBRARY_PATH");
	struct vmstack_map m;
	size_t i, n;
	int libc_dir = 0, is_libc;
	FILE *f;

	/* Where the loader looks: LD_LIBRARY_PATH, then beside our libc. */
	snprintf(dirs, sizeof(dirs), "%s", ld_path ? ld_path : "");
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (vmstack_map_parse(line, &m) || m.perms[2] != 'x')
			continue;
		is_libc = strstr(m.path, "/libc.so") != NULL;
		if (is_libc && !libc_dir++)
			snprintf(dirs + strlen(dirs), sizeof(dirs) - strlen(dirs),
				 ":%.*s:/usr/local/lib",
				 (int)(strrchr(m.path, '/') - m.path), m.path);
		if (is_libc || strstr(m.path, "/ld-linux"))
			vmstack_symbolizer_prewarm(sym, m.path);
	}
	if (f)
		fclose(f);
	if (!exe)
		return;
	vmstack_symbolizer_prewarm(sym, exe);
	n = vmstack_needed(exe, dirs, libs, sizeof(libs) / sizeof(libs[0]));
	for (i = 0; i < n; i++) {
		vmstack_symbolizer_prewarm(sym, libs[i]);
		free(libs[i]);
	}
	free(exe);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void read_comm(int pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
}

struct recording {
	struct vmstack_started sess;
	void *area;
	size_t area_size;
	struct vmstack_ring_view *rings;
	struct vmstack_stacks stacks;
	struct vmstack_raw_buf raw;	/* every record, with --raw */
	int keep_raw;
	int ring_broken;
	struct vmstack_nl *nl;
	struct vmstack_symbolizer *sym;
	const struct options *o;
	size_t nr_vms;
	char vm_label[128];		/* the VMs merged, for the summary */
	int vm_blocks;			/* descriptors read from /tmp/vmstack-PID.vm */
	int vm_lua54_refused;
	uint64_t uw_bytes;		/* module memory for unwind rules */
	size_t uw_maps, uw_rows;
	int uw_failed;
};

static vmstack_vm_namer namer_of(enum vmstack_vm_namer_kind k)
{
	return k == VMSTACK_NAMER_LUAJIT ? vmstack_luajit_name :
	       k == VMSTACK_NAMER_LUA54 ? vmstack_lua54_name : vmstack_cstring_name;
}

/* Describe a VM to the module. 0 or -1 (said why). */
static int add_vm(struct recording *r, const struct vmstack_vm_desc *d,
		  const char *label, vmstack_vm_namer namer)
{
	size_t len = strlen(r->vm_label);
	char msg[256];

	if (vmstack_nl_vm_add(r->nl, r->sess.session_id, d, sizeof(*d), msg,
			      sizeof(msg))) {
		fprintf(stderr, TOOL ": VM %s: descriptor refused: %s\n", label, msg);
		return -1;
	}
	/* One namer: a process that mixes VMs gets the last one's names. */
	vmstack_symbolizer_set_vm_namer(r->sym, namer);
	if (!strstr(r->vm_label, label))
		snprintf(r->vm_label + len, sizeof(r->vm_label) - len, "%s%s",
			 len ? ", " : "", label);
	r->nr_vms++;
	return 0;
}

/* A new mapping that holds a VM's interpreter: describe it to the module. */
static void detect_vm(struct recording *r, struct vmstack_map *m)
{
	struct vmstack_vm_desc d;
	const char *why = NULL;
	int mode = r->o->vm;

	if ((mode == VM_AUTO || mode == VM_LUAJIT) && !vmstack_luajit_describe(m, &d)) {
		add_vm(r, &d, "LuaJIT", vmstack_luajit_name);
		return;
	}
	if (mode != VM_AUTO && mode != VM_LUA54)
		return;
	switch (vmstack_lua54_describe(m, &d, &why)) {
	case 0:
		add_vm(r, &d, "Lua 5.4", vmstack_lua54_name);
		break;
	case -2:
		if (!r->vm_lua54_refused++)
			fprintf(stderr, TOOL ": Lua 5.4 in %s: %s; its frames are not merged\n",
				m->path, why);
		break;
	}
}

/*
 * Descriptors in text: --vm FILE, or what the target registered with
 * libvmstack. Only blocks not seen before are added. 0, or -1 (said why).
 */
static int add_vm_text(struct recording *r, const char *path, int from_target)
{
	struct vmstack_vm_text t[VMSTACK_VM_MAX];
	char err[256], *text;
	struct stat st, target;
	char proc[64];
	int n, i;

	if (from_target) {
		/* Like perf with /tmp/perf-PID.map: only the target's owner's. */
		snprintf(proc, sizeof(proc), "/proc/%d", r->o->pid);
		if (stat(path, &st) || stat(proc, &target))
			return 0;
		if ((st.st_uid && st.st_uid != target.st_uid) || (st.st_mode & 022)) {
			if (!r->vm_blocks) {
				fprintf(stderr, TOOL ": ignoring %s: not owned by the target's user, or writable by others\n",
					path);
				r->vm_blocks = -1;
			}
			return 0;
		}
	}
	text = read_file(path, 1 << 20);
	if (!text) {
		if (!from_target)
			fprintf(stderr, TOOL ": cannot read %s: %s\n", path, strerror(errno));
		return from_target ? 0 : -1;
	}
	if (from_target) {
		/*
		 * A registration being written may end in a torn line: drop
		 * it; the parser leaves the block it cuts short for later.
		 */
		char *nl = strrchr(text, '\n');

		if (nl)
			nl[1] = 0;
		else
			*text = 0;
	}
	n = vmstack_vm_text_parse(text, t, VMSTACK_VM_MAX, err, sizeof(err));
	free(text);
	if (n < 0) {
		if (!from_target || r->vm_blocks >= 0)
			fprintf(stderr, TOOL ": %s: %s\n", path, err);
		if (from_target)
			r->vm_blocks = -1;
		return -1;
	}
	for (i = r->vm_blocks; i < n; i++)
		if (add_vm(r, &t[i].desc, t[i].name, namer_of(t[i].namer)) && !from_target)
			return -1;
	r->vm_blocks = n > r->vm_blocks ? n : r->vm_blocks;
	return 0;
}

static void poll_vm_file(struct recording *r)
{
	char path[64];

	if (r->o->vm != VM_AUTO || r->vm_blocks < 0)
		return;
	snprintf(path, sizeof(path), "/tmp/vmstack-%d.vm", r->o->pid);
	add_vm_text(r, path, 1);
}

/* Give the module the unwind rules of a new executable mapping. */
static void upload_unwind(struct recording *r, struct vmstack_map *m)
{
	const struct vmstack_cfi_table *cfi;
	struct vmstack_uw_row *rows;
	char msg[256];
	uint64_t lo;
	size_t n;

	if (!m->symtab || !(cfi = vmstack_symtab_cfi(m->symtab)) ||
	    vmstack_symtab_vaddr(m->symtab, m->offset, &lo))
		return;
	n = vmstack_cfi_slice(cfi, lo, lo + (m->end - m->start), &rows);
	if (n && vmstack_nl_unwind_add(r->nl, r->sess.session_id, m->start, m->end,
				       rows, n, &r->uw_bytes, msg, sizeof(msg))) {
		if (!r->uw_failed++)
			fprintf(stderr, TOOL ": unwind rules for %s refused: %s\n",
				m->path, msg);
	} else if (n) {
		r->uw_maps++;
		r->uw_rows += n;
	}
	free(rows);
}

/* A new executable mapping: its unwind rules and VM, if any. */
static void on_new_map(void *arg, struct vmstack_map *m)
{
	struct recording *r = arg;

	if (r->o->vm)
		detect_vm(r, m);
	if (r->o->cfi)
		upload_unwind(r, m);
}

static void on_sample(const struct vmstack_rec_sample *rec, void *arg)
{
	struct recording *r = arg;
	unsigned i;

	/* VM objects may be freed soon: name new VM functions now. */
	if (rec->hdr.flags & VMSTACK_SF_VM)
		for (i = rec->nr_kernel; i < (unsigned)rec->nr_kernel + rec->nr_user; i++) {
			unsigned int kind = vmstack_is_vmw(rec->ips[i]) ?
					    vmstack_vmw_kind(rec->ips[i]) : 0;

			if (kind == VMSTACK_VMW_SCRIPT || kind == VMSTACK_VMW_BUILTIN ||
			    kind == VMSTACK_VMW_JIT)
				vmstack_symbolizer_note_vm(r->sym, rec->ips[i]);
			/* A script frame's PC word follows it. */
			if (kind == VMSTACK_VMW_SCRIPT)
				i++;
		}
	vmstack_stacks_add(&r->stacks, rec);
	if (r->keep_raw)
		vmstack_raw_append(&r->raw, rec);
}

static void drain(struct recording *r)
{
	unsigned cpu;

	for (cpu = 0; cpu < r->sess.nr_cpus; cpu++)
		if (vmstack_ring_drain(&r->rings[cpu], on_sample, r) < 0 &&
		    !r->ring_broken) {
			r->ring_broken = 1;
			fprintf(stderr, TOOL ": ring of CPU %u is corrupt; its samples are lost\n",
				cpu);
		}
}

static void sum_counts(struct vmstack_nl *nl, struct recording *r,
		       struct vmstack_cpu_counts *sum, uint64_t *hist)
{
	struct vmstack_cpu_counts *c = xcalloc(r->sess.nr_cpus, sizeof(*c));
	unsigned i, k, n = 0;
	char msg[256];

	memset(sum, 0, sizeof(*sum));
	if (!vmstack_nl_session_stats(nl, r->sess.session_id, c, r->sess.nr_cpus,
				      &n, hist, msg, sizeof(msg))) {
		for (i = 0; i < n; i++)
			for (k = 0; k < VMSTACK_NR_COUNTERS; k++)
				sum->v[k] += c[i].v[k];
	}
	free(c);
}

static int write_output(struct recording *r, struct vmstack_symbolizer *sym,
			const char *comm, const struct options *o)
{
	FILE *out = stdout;
	int err = 0;

	if (o->output && strcmp(o->output, "-")) {
		out = fopen(o->output, "w");
		if (!out) {
			fprintf(stderr, TOOL ": cannot write %s: %s\n", o->output,
				strerror(errno));
			return -1;
		}
	}
	if (vmstack_fold_write(&r->stacks, sym, comm, o->per_thread, out) ||
	    fflush(out)) {
		fprintf(stderr, TOOL ": writing the output failed\n");
		err = -1;
	}
	if (out != stdout)
		fclose(out);
	return err;
}

/* The value below which a fraction q of the samples fall. */
static uint64_t hist_quantile(const uint64_t *hist, double q)
{
	uint64_t total = 0, seen = 0;
	unsigned b;

	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++)
		total += hist[b];
	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (total && seen >= q * total)
			return vmstack_hist_lower(b);
	}
	return 0;
}

static void print_cost(const struct vmstack_cpu_counts *c, const uint64_t *hist)
{
	uint64_t taken = VMSTACK_CNT(c, TAKEN), written = VMSTACK_CNT(c, WRITTEN);
	double mean = taken ? (double)VMSTACK_CNT(c, HANDLER_NS) / taken : 0;
	double fps = written ? (double)VMSTACK_CNT(c, FRAMES) / written : 0;

	fprintf(stderr, TOOL ": handler: p50 %" PRIu64 " ns, p99 %" PRIu64
		" ns, mean %.0f ns; %.1f frames/sample, %.1f ns/frame\n",
		hist_quantile(hist, 0.5), hist_quantile(hist, 0.99), mean, fps,
		fps ? mean / fps : 0);
}

static void status_line(struct vmstack_nl *nl, struct recording *r)
{
	struct vmstack_cpu_counts c;

	sum_counts(nl, r, &c, NULL);
	fprintf(stderr, "\r" TOOL ": %" PRIu64 " samples, %" PRIu64 " lost   ",
		r->stacks.samples, VMSTACK_CNT(&c, DROPPED));
}

int main(int argc, char **argv)
{
	struct vmstack_start_req req;
	struct vmstack_symbolizer *sym;
	static uint64_t hist[VMSTACK_HIST_BUCKETS];
	struct vmstack_cpu_counts c;
	uint64_t taken, dropped;
	struct recording r = { 0 };
	struct vmstack_nl *nl;
	struct command cmd = { .pid = -1 };
	int pidfd, exited = 0, err, status, show, period_ms;
	double t0, last_refresh, last_status, last_change;
	char msg[256], comm[64] = "?";
	struct sigaction sa = { .sa_handler = on_signal };
	struct options o;

	if (parse_args(argc, argv, &o))
		return 2;
	if (vmstack_nl_connect(&nl, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": %s\n", msg);
		return 1;
	}
	if (o.cmd) {
		if (start_command(o.cmd, &cmd)) {
			fprintf(stderr, TOOL ": cannot start %s: %s\n", o.cmd[0],
				strerror(errno));
			return 1;
		}
		o.pid = cmd.pid;
	} else if (kill(o.pid, 0) && errno == ESRCH) {
		fprintf(stderr, TOOL ": no process with PID %d\n", o.pid);
		return 1;
	}
	pidfd = (int)syscall(SYS_pidfd_open, o.pid, 0);

	req = (struct vmstack_start_req){
		.pid = (uint32_t)o.pid, .freq = o.freq, .event = o.event,
		.stacks = o.kernel ? VMSTACK_STACK_ALL : VMSTACK_STACK_USER,
		.max_depth = o.max_depth, .ring_pages = o.ring_pages,
		/* Unwind rules first, then samples. */
		.paused = 1,
	};
	err = vmstack_nl_session_start(nl, &req, &r.sess, msg, sizeof(msg));
	if (err) {
		if (err == -EPERM)
			fprintf(stderr, TOOL ": permission denied: %s (run as root)\n", msg);
		else if (err == -ESRCH)
			fprintf(stderr, TOOL ": PID %d: %s\n", o.pid, msg);
		else
			fprintf(stderr, TOOL ": cannot start a session: %s\n", msg);
		if (o.cmd)
			kill(o.pid, SIGKILL);
		return 1;
	}
	r.area_size = (size_t)r.sess.nr_cpus * (r.sess.ring_pages + 1) *
		      (size_t)sysconf(_SC_PAGESIZE);
	r.area = mmap(NULL, r.area_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r.sess.fd, 0);
	if (r.area == MAP_FAILED) {
		fprintf(stderr, TOOL ": cannot map the ring buffers: %s\n",
			strerror(errno));
		if (o.cmd)
			kill(o.pid, SIGKILL);
		return 1;
	}
	r.rings = xcalloc(r.sess.nr_cpus, sizeof(*r.rings));
	vmstack_ring_views(r.area, r.sess.nr_cpus, r.sess.ring_pages,
			   (size_t)sysconf(_SC_PAGESIZE), r.rings);
	vmstack_stacks_init(&r.stacks, o.per_thread);
	r.keep_raw = o.raw != NULL;

	sym = vmstack_symbolizer_new(o.pid);
	r.nl = nl;
	r.sym = sym;
	r.o = &o;
	vmstack_symbolizer_on_new_map(sym, on_new_map, &r);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A command's maps are read once it has run exec, below. */
	if (!o.cmd)
		vmstack_symbolizer_refresh(sym);
	else if (o.cfi)
		prewarm(sym, o.cmd[0]);
	/* Descriptors from a file: in place before the first sample. */
	if (o.vm == VM_FILE && add_vm_text(&r, o.vm_file, 0)) {
		if (o.cmd)
			kill(o.pid, SIGKILL);
		return 1;
	}
	if (vmstack_nl_session_resume(nl, r.sess.session_id, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": cannot start sampling: %s\n", msg);
		if (o.cmd)
			kill(o.pid, SIGKILL);
		return 1;
	}
	if (o.cmd) {
		err = release_command(&cmd);
		if (err) {
			fprintf(stderr, TOOL ": cannot run %s: %s\n", o.cmd[0],
				strerror(err));
			waitpid(o.pid, &status, 0);
			return 1;
		}
	}
	vmstack_symbolizer_refresh(sym);
	poll_vm_file(&r);
	read_comm(o.pid, comm, sizeof(comm));
	show = !o.quiet && isatty(STDERR_FILENO);

	/*
	 * Wake often enough to drain a ring at a quarter full, assuming 100
	 * bytes a sample, within 10..100 ms: fewer wake-ups at low rates.
	 */
	period_ms = (int)((double)r.sess.ring_pages * sysconf(_SC_PAGESIZE) /
			  (o.freq * 100.0) / 4 * 1000);
	period_ms = period_ms < 10 ? 10 : period_ms > 100 ? 100 : period_ms;
	t0 = last_refresh = last_status = last_change = now();
	while (!stop_requested && !exited) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		/* Every 10 ms while a loader maps libraries (below). */
		int wait_ms = now() - last_change < 0.5 ? 10 : period_ms;

		if (pidfd >= 0 && poll(&pfd, 1, wait_ms) > 0)
			exited = 1;
		else if (pidfd < 0 && (usleep(wait_ms * 1000), kill(o.pid, 0)) &&
			 errno == ESRCH)
			exited = 1;
		drain(&r);
		if (o.duration && now() - t0 >= o.duration)
			break;
		/*
		 * New libraries (dlopen) and a changed name (exec): each second,
		 * and every 10 ms for half a second after a new mapping, while
		 * a dynamic loader maps libraries.
		 */
		if (now() - last_refresh >= (now() - last_change < 0.5 ? 0.0 : 1.0) &&
		    !exited) {
			last_refresh = now();
			if (vmstack_symbolizer_refresh(sym) > 0)
				last_change = last_refresh;
			poll_vm_file(&r);
			read_comm(o.pid, comm, sizeof(comm));
		}
		if (show && now() - last_status >= 1.0) {
			last_status = now();
			status_line(nl, &r);
		}
	}
	if (show)
		fputc('\n', stderr);
	vmstack_nl_session_stop(nl, r.sess.session_id, msg, sizeof(msg));
	drain(&r);
	sum_counts(nl, &r, &c, hist);
	munmap(r.area, r.area_size);
	close(r.sess.fd);
	vmstack_nl_close(nl);

	vmstack_symbolizer_load_perf_map(sym);
	err = write_output(&r, sym, comm, &o);
	if (o.raw && vmstack_raw_write(o.raw, o.pid, comm, sym, &r.raw)) {
		fprintf(stderr, TOOL ": cannot write %s: %s\n", o.raw, strerror(errno));
		err = -1;
	}

	taken = VMSTACK_CNT(&c, TAKEN);
	dropped = VMSTACK_CNT(&c, DROPPED);
	fprintf(stderr, TOOL ": %" PRIu64 " samples, %" PRIu64 " lost (%.2f%%), %zu distinct stacks",
		r.stacks.samples, dropped, taken ? 100.0 * dropped / taken : 0.0,
		r.stacks.n);
	if (r.nr_vms)
		fprintf(stderr, "; VM frames merged (%s), %" PRIu64 " VM stacks cut by bad VM data",
			r.vm_label, VMSTACK_CNT(&c, VM_ERRORS));
	if (VMSTACK_CNT(&c, USER_FAULTS) || VMSTACK_CNT(&c, TRUNCATED))
		fprintf(stderr, "; %" PRIu64 " user stacks cut by unreadable memory, %" PRIu64 " by --max-depth",
			VMSTACK_CNT(&c, USER_FAULTS), VMSTACK_CNT(&c, TRUNCATED));
	fprintf(stderr, "\n");
	if (taken && 100.0 * dropped / taken > LOSS_WARN_PERCENT)
		fprintf(stderr, TOOL ": warning: %.1f%% of samples lost: raise --ring-pages or lower -F\n",
			100.0 * dropped / taken);
	if (o.stats) {
		print_cost(&c, hist);
		fprintf(stderr, TOOL ": unwind rules: %zu mappings, %zu rows, %" PRIu64
			" bytes in the module\n", r.uw_maps, r.uw_rows, r.uw_bytes);
	}
	if (!r.stacks.samples)
		fprintf(stderr, TOOL ": warning: no samples (did the target run on a CPU?)\n");

	if (o.cmd) {
		if (!exited)
			kill(o.pid, SIGTERM);
		waitpid(o.pid, &status, 0);
	}
	vmstack_symbolizer_free(sym);
	vmstack_stacks_free(&r.stacks);
	free(r.raw.data);
	free(r.rings);
	return err ? 1 : 0;
}
