// SPDX-License-Identifier: GPL-2.0
/*
 * -p through events on the target's threads (ABI 4.3): an exec that
 * leaves a target's effective ids other than its real ones (a setuid or
 * setgid program) makes it not dumpable, and perf then removes its events
 * (begin_new_exec(): set_dumpable(suid_dumpable), then
 * perf_event_exit_task() unless it is SUID_DUMP_USER), as it ends perf -p
 * there: the process is not sampled from then on. So that no sample goes
 * missing without a word, the recorder looks, as it drains, whether a
 * named target exec'd (its name changed) into such ids, and the summary
 * says so. Not seen: a target that execs and exits between two looks, an
 * exec of a file it may not read (also not dumpable), and a host whose
 * fs.suid_dumpable is 1 (the events stay: reported all the same).
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "setuid_watch.h"
#include "targets.h"

/*
 * Process @pid's name, and whether its effective uid or gid differs from
 * the real one (/proc/PID/status: "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS").
 * 0, or -1 if it cannot be read.
 */
static int name_and_setid(int pid, char *name, size_t len, int *setid)
{
	unsigned long real, eff;
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*setid = 0;
	while (found < 3 && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:\t", 6)) {
			size_t k = strcspn(line + 6, "\n");

			/* The kernel's comm: at most 15 bytes. */
			if (k >= len)
				k = len - 1;
			memcpy(name, line + 6, k);
			name[k] = 0;
			found++;
		} else if (sscanf(line, "Uid: %lu %lu", &real, &eff) == 2 ||
			   sscanf(line, "Gid: %lu %lu", &real, &eff) == 2) {
			*setid |= real != eff;
			found++;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}

void record_setuid_watch_start(struct vmstack_target *t)
{
	int setid;

	t->setuid_exec = 0;
	if (name_and_setid(t->pid, t->seen_name, sizeof(t->seen_name), &setid))
		t->seen_name[0] = 0;
}

void record_setuid_watch(struct record_targets *ts)
{
	char name[64];
	int setid;
	size_t i;

	for (i = 0; i < ts->named && i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];

		if (t->pid < 0 || t->exited || t->setuid_exec ||
		    name_and_setid(t->pid, name, sizeof(name), &setid) ||
		    !strcmp(name, t->seen_name))
			continue;
		/* An exec: into other effective ids? */
		snprintf(t->seen_name, sizeof(t->seen_name), "%s", name);
		t->setuid_exec = setid;
	}
}

void record_setuid_watch_report(const struct record_targets *ts, FILE *f)
{
	size_t i;

	for (i = 0; i < ts->named && i < ts->n; i++)
		if (ts->t[i].setuid_exec)
			fprintf(f, TOOL ": PID %d exec'd %s with other effective ids than its real ones (setuid or setgid): perf removed its events then, as it does for perf -p, and it was not sampled afterwards\n",
				ts->t[i].pid, ts->t[i].seen_name);
}
