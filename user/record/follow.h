/* SPDX-License-Identifier: GPL-2.0 */
/* -p's targets' child processes, found and joined (follow.c). */
#ifndef VMSTACK_RECORD_FOLLOW_H
#define VMSTACK_RECORD_FOLLOW_H

struct record_targets;

/* How often the targets' children are looked for. */
#define FOLLOW_SCAN_MS 100

/* -p without --no-inherit: the targets' new children joined, if it is time. */
void record_follow_scan(struct record_targets *ts);

#endif
