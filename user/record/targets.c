// SPDX-License-Identifier: GPL-2.0
/* The processes a recording samples: the set (targets.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "follow.h"
#include "options.h"
#include "py_tramp.h"
#include "session.h"
#include "process.h"
#include "setuid_watch.h"
#include "targets.h"
#include "util.h"
#include "vm/attach.h"

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

void record_targets_open(struct record_targets *ts, const struct record_options *o,
			 struct record_session *s)
{
	size_t i;

	ts->o = o;
	ts->session = s;
	ts->whole = o->all || o->cgroup || o->children;
	ts->follow = o->follow;
	/* --children: the command is the first, its children join. */
	ts->n = ts->named = o->all || o->cgroup ? 0 : o->npids;
	ts->cap = ts->whole || ts->follow ? whole_capacity() : o->npids;
	ts->t = xcalloc(ts->cap, sizeof(*ts->t));
	ts->pfd = xcalloc(ts->cap + 1, sizeof(*ts->pfd));	/* and the session's */
	ts->pfd_target = xcalloc(ts->cap, sizeof(*ts->pfd_target));
	for (i = 0; i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];

		record_target_open(ts, t, o->pids[i]);
		record_setuid_watch_start(t);
		if (!o->cmd)
			vmstack_process_refresh(t->proc);
	}
}

/*
 * -a, --cgroup: a process seen for the first time (its first samples were
 * walked with frame pointers only) joins the module's set with its rules
 * and VMs, so the next are merged; -p: a target's child, found. A kernel
 * thread, or a process the module refuses, is named but not described.
 */
struct vmstack_target *record_targets_join(struct record_targets *ts, int pid)
{
	struct vmstack_target *t = NULL;
	char msg[256];
	size_t i;

	for (i = 0; i < ts->n && !t; i++)
		if (ts->t[i].pid < 0)
			t = &ts->t[i];
	if (!t && ts->n < ts->cap)
		t = &ts->t[ts->n++];
	if (!t) {
		ts->untracked++;
		return NULL;
	}
	record_target_open(ts, t, pid);
	t->described = pid > 0 && !vmstack_nl_target_add(ts->session->nl,
							  ts->session->started.fd,
							  (uint32_t)pid, msg, sizeof(msg));
	ts->joined++;
	ts->not_described += !t->described;
	t->refreshed = t->changed = record_now();
	vmstack_process_refresh(t->proc);
	record_py_tramp_refresh(ts, t);
	if (t->described && ts->o->vm == VM_AUTO)
		vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
	record_note_join_delay(ts, t);
	return t;
}

/*
 * -a, --cgroup: the processes on a CPU now are described before sampling
 * starts, so the busy ones have no samples walked with frame pointers
 * alone; the others join as their first samples come. Not every process
 * in /proc: an idle one would take module memory for nothing.
 */
void record_targets_join_running(struct record_targets *ts)
{
	char want[4200] = "", real[PATH_MAX], cg[4200];
	static int pids[VMSTACK_MAX_TARGETS];
	size_t i, n;

	ts->boot_started = record_boottime();
	record_follow_scan(ts);
	if (!ts->o->all && !ts->o->cgroup)
		return;
	n = vmstack_procs_running(pids, ts->cap);
	/* --cgroup: its path as /proc/PID/cgroup gives it. */
	if (ts->o->cgroup) {
		vmstack_cgroup_dir(ts->o->cgroup, cg, sizeof(cg));
		if (!realpath(cg, real) || strncmp(real, "/sys/fs/cgroup", 14))
			return;
		snprintf(want, sizeof(want), "%s", real[14] ? real + 14 : "/");
	}
	for (i = 0; i < n; i++) {
		if (pids[i] == getpid() ||
		    (*want && (vmstack_target_cgroup(pids[i], cg, sizeof(cg)) ||
			       !vmstack_cgroup_within(cg, want))))
			continue;
		if (!vmstack_target_find(ts->t, ts->n, pids[i]))
			record_targets_join(ts, pids[i]);
	}
}

struct vmstack_target *record_targets_of_sample(struct record_targets *ts, int pid)
{
	struct vmstack_target *t;

	t = ts->last && ts->last->pid == pid ? ts->last : vmstack_target_find(ts->t, ts->n, pid);
	/* Else the module samples only targets: a number it gave is one. */
	if (!t && ts->whole)
		t = record_targets_join(ts, pid);
	if (t)
		ts->last = t;
	return t;
}

/*
 * A target without a pidfd (an old kernel) is looked at with kill(pid, 0).
 * The session's file, when the module wakes its reader (4.2), ends the
 * wait as soon as a ring is filled to its mark.
 */
void record_targets_wait(struct record_targets *ts, int ms)
{
	int wake_fd = ts->session->wake_fd;
	nfds_t n = 0, j;
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (!ts->t[i].exited && ts->t[i].pidfd >= 0) {
			ts->pfd_target[n] = i;
			ts->pfd[n++] = (struct pollfd){ .fd = ts->t[i].pidfd, .events = POLLIN };
		}
	if (wake_fd >= 0)
		ts->pfd[n] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
	if (n || wake_fd >= 0)
		poll(ts->pfd, n + (wake_fd >= 0), ms);
	else
		usleep((useconds_t)ms * 1000);
	/* A readable pidfd: its process exited. Those without one: kill(pid, 0). */
	for (j = 0; j < n; j++)
		if (ts->pfd[j].revents)
			ts->t[ts->pfd_target[j]].exited = 1;
	for (i = 0; i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];
		char msg[256];

		if (t->pid <= 0 || t->counted_exit ||
		    !(t->exited || (t->pidfd < 0 && vmstack_target_gone(t))))
			continue;
		t->counted_exit = 1;
		ts->nexited++;
		ts->command_exited |= ts->o->cmd && t == ts->t;
		/* Its rules and VMs are freed now, not at the end (not the first: 3.3). */
		if (t->described && record_module_pid(ts, t))
			vmstack_nl_target_del(ts->session->nl, ts->session->started.fd,
					      (uint32_t)t->pid, msg, sizeof(msg));
	}
}

int record_targets_done(const struct record_targets *ts)
{
	size_t i;

	if (ts->o->all || ts->o->cgroup)
		return 0;
	if (ts->o->children)
		return ts->command_exited;
	/* -p: every process followed exited, the children found too. */
	for (i = 0; i < ts->n; i++)
		if (ts->t[i].pid > 0 && !ts->t[i].counted_exit)
			return 0;
	return 1;
}

void record_targets_reap(struct record_targets *ts)
{
	size_t i;

	/*
	 * -p's named processes stay (the recording ends when all of them
	 * exited); the children it followed go as -a's processes do.
	 */
	if (!ts->whole && !ts->follow)
		return;
	for (i = ts->whole ? 0 : ts->named; i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];

		if (t->pid < 0 || !t->exited)
			continue;
		if (ts->last == t)
			ts->last = NULL;
		vmstack_target_close(t);
		ts->nexited--;
	}
}

void record_targets_close(struct record_targets *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		vmstack_target_close(&ts->t[i]);
	free(ts->t);
	free(ts->pfd);
	free(ts->pfd_target);
	free(ts->join_delay);
	ts->t = NULL;
	ts->pfd = NULL;
	ts->pfd_target = NULL;
	ts->join_delay = NULL;
}
