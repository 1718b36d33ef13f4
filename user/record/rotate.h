/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Continuous recording (--every): one profile per interval, written into a
 * directory as vmstack-YYYYMMDDTHHMMSSZ.SUFFIX (the interval's start, UTC),
 * whole or not at all: each is written to a hidden temporary name and
 * renamed, so a collector that picks up files never reads half of one.
 * With a limit, the oldest of the directory's profiles go first.
 */
#ifndef VMSTACK_ROTATE_H
#define VMSTACK_ROTATE_H

#include <stddef.h>
#include <time.h>

struct vmstack_output;
struct vmstack_output_opts;
struct vmstack_profile;

struct vmstack_rotate {
	const char *dir;
	const struct vmstack_output *format;
	unsigned int keep;	/* profiles kept in the directory; 0: all */
	const char *tool;	/* prefixes messages */
	char last[4096];	/* the path last written */
};

/* Make @rt->dir if needed; 0, or -1 (said why). */
int vmstack_rotate_open(struct vmstack_rotate *rt);
/*
 * Write @p, the interval that started at @start, then remove the oldest
 * profiles beyond @rt->keep. 0, or -1 (said why; the recording goes on).
 */
int vmstack_rotate_write(struct vmstack_rotate *rt, const struct vmstack_profile *p,
			 const struct vmstack_output_opts *oo, time_t start);

#endif
