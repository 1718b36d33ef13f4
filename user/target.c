// SPDX-License-Identifier: GPL-2.0
/* One process a recording samples (target.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "symbols.h"
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

void vmstack_target_open(struct vmstack_target *t, int pid, void *owner)
{
	*t = (struct vmstack_target){ .pid = pid, .owner = owner, .comm = "?" };
	/* A pidfd says when it exits; without one (old kernel), kill(pid, 0). */
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	t->sym = vmstack_symbolizer_new(pid);
	snprintf(t->vm_file, sizeof(t->vm_file), "/tmp/vmstack-%d.vm", pid);
	vmstack_target_read_comm(t);
}

void vmstack_target_close(struct vmstack_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	vmstack_symbolizer_free(t->sym);
	t->sym = NULL;
	t->pidfd = -1;
}

int vmstack_target_gone(struct vmstack_target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (!t->exited)
		t->exited = t->pidfd >= 0 ? poll(&pfd, 1, 0) > 0 :
			    kill(t->pid, 0) && errno == ESRCH;
	return t->exited;
}

struct vmstack_target *vmstack_target_find(struct vmstack_target *t, size_t n, int pid)
{
	size_t i;

	/* A handful of targets: a scan is cheaper than a table. */
	for (i = 0; i < n; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}
