// SPDX-License-Identifier: GPL-2.0
/* The recorder's session with vmstack.ko (session.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "options.h"
#include "ring_reader.h"
#include "ring_size.h"
#include "session.h"
#include "target.h"
#include "util.h"

int record_session_connect(struct record_session *s)
{
	struct vmstack_status st;
	char msg[256];

	s->started.fd = -1;
	s->wake_fd = -1;
	if (vmstack_nl_connect_status(&s->nl, &st, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": %s\n", msg);
		return -1;
	}
	s->abi_minor = st.abi_minor;
	return 0;
}

/* Threads of process @pid now, 0 if it cannot be read. */
static size_t count_threads(int pid)
{
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * An event on each thread (TASK_EVENTS) where the module can, so that
 * CPUs the targets do not run on take no interrupt: a command (one thread,
 * held before exec), or -p processes (ABI 4.3) of at most the module's
 * number of threads; else one event per CPU, filtered by process, and
 * s->cpu_events_why says why.
 */
static int use_thread_events(struct record_session *s, const struct record_options *o)
{
	size_t i, threads = 0;

	s->cpu_events_why[0] = 0;
	if (o->cmd)
		return 1;
	if (!o->npids)
		return 0;
	if (o->cpu_events) {
		snprintf(s->cpu_events_why, sizeof(s->cpu_events_why), "--cpu-events");
		return 0;
	}
	if (s->abi_minor < 3) {
		snprintf(s->cpu_events_why, sizeof(s->cpu_events_why),
			 "the module predates events on a running process's threads (ABI 4.3)");
		return 0;
	}
	for (i = 0; i < o->npids; i++)
		threads += count_threads(o->pids[i]);
	/* --wall's threads have two events each. */
	if (threads > VMSTACK_MAX_THREAD_EVENTS / (o->wall ? 2 : 1)) {
		snprintf(s->cpu_events_why, sizeof(s->cpu_events_why),
			 "%zu threads: the module gives events to %d at most", threads,
			 VMSTACK_MAX_THREAD_EVENTS / (o->wall ? 2 : 1));
		return 0;
	}
	return 1;
}

/*
 * The other -p processes join the session: each needs the same right to
 * be read as the first, and a module of ABI 3.4 or later.
 */
static int add_targets(struct record_session *s, const struct record_options *o)
{
	char msg[256];
	size_t i;
	int err;

	for (i = 1; i < o->npids; i++) {
		err = vmstack_nl_target_add(s->nl, s->started.fd, (uint32_t)o->pids[i],
					    msg, sizeof(msg));
		if (err) {
			fprintf(stderr, TOOL ": PID %d: %s\n", o->pids[i], msg);
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

/* The module's rings: one per possible CPU (nr_cpu_ids), not per online one. */
static unsigned int possible_cpus(void)
{
	char *text = read_file("/sys/devices/system/cpu/possible", 4096), *last;
	long n = 0;

	/* "0-63", or a list such as "0-3,8-11": the last CPU's number + 1. */
	if (text) {
		last = text + strcspn(text, "\n");
		while (last > text && (last[-1] >= '0' && last[-1] <= '9'))
			last--;
		n = strtol(last, NULL, 10) + 1;
	}
	free(text);
	return n > 0 ? (unsigned int)n : (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
}

/*
 * Bytes of locked memory the rings may take, as the module judges it:
 * RLIMIT_MEMLOCK, unless the caller has CAP_IPC_LOCK (effective; the
 * module counts it in the initial user namespace only: in another, a
 * refusal says so).
 */
static uint64_t ring_memlock(void)
{
	char *text = read_file("/proc/self/status", 16384), *cap;
	unsigned long long eff = 0;
	struct rlimit rl;

	cap = text ? strstr(text, "\nCapEff:") : NULL;
	if (cap)
		eff = strtoull(cap + 8, NULL, 16);
	free(text);
	if (eff & 1ULL << CAP_IPC_LOCK || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_cur;
}

/*
 * --ring-pages, or rings sized for the rate (after the sysctl's cap) and
 * the depth: say so when RLIMIT_MEMLOCK holds them below that.
 */
static unsigned int ring_pages(const struct record_options *o, unsigned int freq)
{
	struct ring_size_in in = {
		.freq = freq, .max_depth = o->max_depth, .kernel = o->kernel,
		.nr_rings = possible_cpus(), .page_size = (size_t)sysconf(_SC_PAGESIZE),
		.memlock = ring_memlock(),
	};
	struct ring_size rs;

	if (o->ring_pages)
		return o->ring_pages;
	rs = ring_size_default(&in);
	if (rs.pages < rs.need)
		fprintf(stderr, TOOL ": RLIMIT_MEMLOCK (%" PRIu64 " KiB) holds the rings to %u pages a CPU on %u CPUs; -F %u with --max-depth %u needs %u not to lose samples at worst: raise the limit (ulimit -l) or lower -F or --max-depth\n",
			in.memlock >> 10, rs.pages, in.nr_rings, freq, o->max_depth, rs.need);
	return rs.pages;
}

/* The module's ENOMEM: the rings' locked memory, most likely; what they take. */
static void say_no_memory(const char *msg, unsigned int pages, size_t page)
{
	uint64_t limit = ring_memlock();

	fprintf(stderr, TOOL ": cannot start a session: %s (rings of %u pages a CPU on %u CPUs: %" PRIu64
		" KiB, besides the user's other locked memory", msg, pages, possible_cpus(),
		(uint64_t)possible_cpus() * (pages + 1) * page >> 10);
	if (limit != UINT64_MAX)
		fprintf(stderr, "; RLIMIT_MEMLOCK %" PRIu64 " KiB", limit >> 10);
	fprintf(stderr, ")\n");
}

int record_session_start(struct record_session *s, const struct record_options *o)
{
	struct vmstack_start_req req = {
		.pid = (uint32_t)o->pids[0], .all = o->all, .children = o->children, .freq = o->freq, .event = o->event,
		.stacks = o->kernel ? VMSTACK_STACK_ALL : VMSTACK_STACK_USER,
		.max_depth = o->max_depth,
		/* Unwind rules first, then samples. */
		.paused = 1,
		.task_events = use_thread_events(s, o),
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char msg[256], path[4096];
	unsigned int max_rate;
	int err;

	if (o->wall && s->abi_minor < 5) {
		fprintf(stderr, TOOL ": --wall needs vmstack.ko ABI 4.5 (both events in one session); the loaded module has 4.%u\n",
			s->abi_minor);
		return -1;
	}
	if (o->off_cpu && s->abi_minor < 4) {
		fprintf(stderr, TOOL ": --off-cpu needs vmstack.ko ABI 4.4 (context switch records); the loaded module has 4.%u\n",
			s->abi_minor);
		return -1;
	}
	if (o->cgroup) {
		vmstack_cgroup_dir(o->cgroup, path, sizeof(path));
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
	req.ring_pages = ring_pages(o, req.freq);
	err = vmstack_nl_session_start(s->nl, &req, &s->started, msg, sizeof(msg));
	if (o->cgroup)
		close(req.cgroup_fd);
	if (err == -EPERM)
		fprintf(stderr, TOOL ": permission denied: %s (run as root)\n", msg);
	else if (err == -ESRCH)
		fprintf(stderr, TOOL ": PID %d: %s\n", o->pids[0], msg);
	else if (err == -ENOMEM)
		say_no_memory(msg, req.ring_pages, page);
	else if (err)
		fprintf(stderr, TOOL ": cannot start a session: %s\n", msg);
	if (err || add_targets(s, o))
		return -1;
	if (s->started.freq < o->freq)
		fprintf(stderr, TOOL ": -F %u is above kernel.perf_event_max_sample_rate: sampling at %u Hz\n",
			o->freq, s->started.freq);
	s->area_size = (size_t)s->started.nr_cpus * (s->started.ring_pages + 1) * page;
	s->area = mmap(NULL, s->area_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->started.fd, 0);
	if (s->area == MAP_FAILED) {
		s->area = NULL;
		fprintf(stderr, TOOL ": cannot map the ring buffers: %s\n", strerror(errno));
		return -1;
	}
	s->rings = xcalloc(s->started.nr_cpus, sizeof(*s->rings));
	vmstack_ring_views(s->area, s->started.nr_cpus, s->started.ring_pages, page, s->rings);
	/*
	 * An older module's file polls always readable: the timer alone then
	 * (its major was checked at connect).
	 */
	if (s->rings[0].ctl->abi_minor >= 2)
		s->wake_fd = s->started.fd;
	return 0;
}

int record_session_resume(struct record_session *s)
{
	char msg[256];

	if (vmstack_nl_session_resume(s->nl, s->started.fd, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": cannot start sampling: %s\n", msg);
		return -1;
	}
	return 0;
}

void record_session_stop(struct record_session *s)
{
	char msg[256];

	vmstack_nl_session_stop(s->nl, s->started.fd, msg, sizeof(msg));
}

void record_session_counts(struct record_session *s, struct vmstack_cpu_counts *sum,
			   uint64_t *hist)
{
	char msg[256];

	if (vmstack_nl_session_stats(s->nl, s->started.fd, sum, hist, msg, sizeof(msg)))
		memset(sum, 0, sizeof(*sum));
}

void record_session_end(struct record_session *s)
{
	if (s->area)
		munmap(s->area, s->area_size);
	if (s->started.fd >= 0)
		close(s->started.fd);
	free(s->rings);
	s->area = NULL;
	s->started.fd = -1;
	s->wake_fd = -1;
	s->rings = NULL;
}

void record_session_disconnect(struct record_session *s)
{
	vmstack_nl_close(s->nl);
	s->nl = NULL;
}
