/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A target sampled through its threads' events that exec'd a setuid or
 * setgid program: perf removed its events (setuid_watch.c).
 */
#ifndef VMSTACK_RECORD_SETUID_WATCH_H
#define VMSTACK_RECORD_SETUID_WATCH_H

#include <stdio.h>

struct record_targets;
struct vmstack_target;

/* Its name as the recording starts. */
void record_setuid_watch_start(struct vmstack_target *t);
/* Look again (each drain): the named targets. */
void record_setuid_watch(struct record_targets *ts);
/* One line for each that did, for the summary. */
void record_setuid_watch_report(const struct record_targets *ts, FILE *f);

#endif
