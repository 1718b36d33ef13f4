// SPDX-License-Identifier: GPL-2.0
/* One process a recording samples (target.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "process.h"
#include "target.h"

void vmstack_target_read_comm(struct vmstack_target *t)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", t->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(t->comm, (int)sizeof(t->comm), f))
		t->comm[strcspn(t->comm, "\n")] = 0;
	fclose(f);
}

int vmstack_target_cgroup(int pid, char *buf, size_t len)
{
	char path[64], line[4200];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* The unified hierarchy's line: "0::/PATH". */
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			size_t n = strcspn(line + 3, "\n");

			/* Longer paths are cut (a label, not a name to open). */
			n = n < len - 1 ? n : len - 1;
			memcpy(buf, line + 3, n);
			buf[n] = 0;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

void vmstack_cgroup_dir(const char *arg, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", arg[0] == '/' ? "" : "/sys/fs/cgroup/", arg);
}

int vmstack_cgroup_within(const char *cg, const char *dir)
{
	size_t k = strlen(dir);

	return !strcmp(dir, "/") || (!strncmp(cg, dir, k) && (cg[k] == '/' || !cg[k]));
}

/*
 * /proc/PID/stat from its state on (field 3), in @buf; NULL if unreadable.
 * The name before it may hold spaces and parentheses: it ends at the
 * last ')'.
 */
static const char *read_stat(int pid, char *buf, size_t len)
{
	char path[64], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

size_t vmstack_procs_running(int *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		const char *state;
		char buf[1024];

		if (pid > 0 && (state = read_stat(pid, buf, sizeof(buf))) && *state == 'R')
			pids[n++] = pid;
	}
	closedir(d);
	return n;
}

void vmstack_target_open(struct vmstack_target *t, int pid, void *owner)
{
	*t = (struct vmstack_target){ .pid = pid, .owner = owner, .comm = "?" };
	/* Samples of idle CPUs, and of processes outside our PID namespace. */
	if (!pid) {
		snprintf(t->comm, sizeof(t->comm), "swapper");
		t->pidfd = -1;
		t->proc = vmstack_process_new(0);
		return;
	}
	/* A pidfd says when it exits; without one (old kernel), kill(pid, 0). */
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	t->proc = vmstack_process_new(pid);
	snprintf(t->vm_file, sizeof(t->vm_file), "/tmp/vmstack-%d.vm", pid);
	vmstack_target_read_comm(t);
	vmstack_target_cgroup(pid, t->cgroup, sizeof(t->cgroup));
}

void vmstack_target_close(struct vmstack_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	vmstack_process_free(t->proc);
	t->proc = NULL;
	free(t->py_tramp);
	t->py_tramp = NULL;
	t->pidfd = -1;
	t->pid = -1;
}

int vmstack_target_gone(struct vmstack_target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (!t->exited && t->pid > 0)
		t->exited = t->pidfd >= 0 ? poll(&pfd, 1, 0) > 0 :
			    kill(t->pid, 0) && errno == ESRCH;
	return t->exited;
}

struct vmstack_target *vmstack_target_find(struct vmstack_target *t, size_t n, int pid)
{
	size_t i;

	/* -p's handful: a scan. -a's up to 4,096 pay it once per new stack. */
	for (i = 0; i < n; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}

double vmstack_target_started(int pid)
{
	unsigned long long ticks;
	const char *p;
	char buf[1024];

	/* Field 22, the 20th from the state. */
	p = read_stat(pid, buf, sizeof(buf));
	if (!p || sscanf(p, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &ticks) != 1)
		return -1;
	return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}
