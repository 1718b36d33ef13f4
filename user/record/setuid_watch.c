// SPDX-License-Identifier: GPL-2.0
/*
 * -p through events on the target's threads (ABI 4.3): an exec that
 * changes a target's credentials (a setuid or setgid program) leaves it not
 * dumpable, and perf then removes its events (perf_event_exit_task() in
 * begin_new_exec()), as it ends perf -p there: the process is not sampled
 * from then on. So that no sample goes missing without a word, the
 * recorder looks, as it drains, whether a named target exec'd (its name
 * changed) with other effective ids than it had when the recording
 * started, and the summary says so. A process that changes its ids itself
 * (setuid()) keeps its events, and its name.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "setuid_watch.h"
#include "targets.h"

/* Process @pid's effective uid and gid (/proc/PID/status); 0, or -1. */
static int effective_ids(int pid, long *uid, long *gid)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && found < 2) {
		/* "Uid:\treal\teffective\tsaved\tfs" */
		if (sscanf(line, "Uid: %*d %ld", uid) == 1 || sscanf(line, "Gid: %*d %ld", gid) == 1)
			found++;
	}
	fclose(f);
	return found == 2 ? 0 : -1;
}

void record_setuid_watch_start(struct vmstack_target *t)
{
	t->setuid_exec = 0;
	t->ids_known = !effective_ids(t->pid, &t->euid, &t->egid);
	snprintf(t->comm_at_start, sizeof(t->comm_at_start), "%s", t->comm);
}

void record_setuid_watch(struct record_targets *ts)
{
	size_t i;
	long uid, gid;

	for (i = 0; i < ts->named && i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];

		if (t->pid < 0 || t->exited || t->setuid_exec || !t->ids_known ||
		    effective_ids(t->pid, &uid, &gid) || (uid == t->euid && gid == t->egid))
			continue;
		vmstack_target_read_comm(t);
		t->setuid_exec = strcmp(t->comm, t->comm_at_start) != 0;
	}
}

void record_setuid_watch_report(const struct record_targets *ts, FILE *f)
{
	size_t i;

	for (i = 0; i < ts->named && i < ts->n; i++)
		if (ts->t[i].setuid_exec)
			fprintf(f, TOOL ": PID %d exec'd %s with other credentials (setuid or setgid): perf removed its events then, as it does for perf -p, and it was not sampled afterwards\n",
				ts->t[i].pid, ts->t[i].comm);
}
