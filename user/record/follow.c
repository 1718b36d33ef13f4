// SPDX-License-Identifier: GPL-2.0
/*
 * -p follows the processes its targets start, as perf -p's inherited
 * events do, and those they had started before it attached (an nginx or
 * php-fpm master's workers, a pre-forking server's children), and theirs
 * in turn: each joins the module's set (TARGET_ADD: the kernel's
 * permission checks apply to each) with its own unwind rules and VMs, and
 * its samples are rooted at its own name and PID. A session of per-CPU
 * events hears nothing of a fork, so the recorder looks: the children
 * files of every target's threads (/proc/PID/task/TID/children), every
 * FOLLOW_SCAN_MS. A child's samples before it is found are not taken
 * (they count among other processes' interrupts). --no-inherit keeps to
 * the processes named.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clock.h"
#include "follow.h"
#include "options.h"
#include "targets.h"

/* The children of @pid's thread @tid joined, unless known already. */
static void join_children_of(struct record_targets *ts, int pid, const char *tid)
{
	char path[320];
	FILE *f;
	int child;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/children", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fscanf(f, "%d", &child) == 1) {
		struct vmstack_target *t;

		if (child == getpid() || vmstack_target_find(ts->t, ts->n, child))
			continue;
		t = record_targets_join(ts, child);
		if (!t)
			continue;
		ts->followed++;
		ts->followed_refused += !t->described;
	}
	fclose(f);
}

void record_follow_scan(struct record_targets *ts)
{
	char path[64];
	struct dirent *e;
	size_t i;
	DIR *d;

	if (!ts->follow || record_now() - ts->follow_scanned < FOLLOW_SCAN_MS / 1e3)
		return;
	ts->follow_scanned = record_now();
	/* Children that join are scanned in turn: grandchildren join too. */
	for (i = 0; i < ts->n; i++) {
		int pid = ts->t[i].pid;

		if (pid <= 0 || ts->t[i].exited)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		d = opendir(path);
		if (!d)
			continue;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				join_children_of(ts, pid, e->d_name);
		closedir(d);
	}
}
