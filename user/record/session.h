/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's session with vmstack.ko: the netlink connection, the
 * session (started paused, resumed, stopped), its rings mapped, its
 * counters.
 */
#ifndef VMSTACK_RECORD_SESSION_H
#define VMSTACK_RECORD_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "vmstack_nl.h"

struct record_options;
struct vmstack_ring_view;

struct record_session {
	struct vmstack_nl *nl;
	struct vmstack_started started;	/* fd -1: none */
	void *area;			/* every CPU's ring, mapped */
	size_t area_size;
	struct vmstack_ring_view *rings;	/* one per CPU in @area */
	int wake_fd;			/* started.fd if it polls by fill (4.2), else -1 */
	int ring_broken;		/* said that a ring is corrupt */
	uint32_t abi_minor;		/* the module's */
	/* Events per CPU where the targets' threads could have theirs: why. */
	char cpu_events_why[128];
};

/* Connect to the module. 0, or -1 (said why). */
int record_session_connect(struct record_session *s);
/*
 * A paused session on @o's targets (the first -p process, the command,
 * -a or --cgroup; the other -p processes added), its rings mapped. 0, or
 * -1 (said why; what was set up is undone by record_session_end).
 */
int record_session_start(struct record_session *s, const struct record_options *o);
/* Sampling starts. 0, or -1 (said why). */
int record_session_resume(struct record_session *s);
void record_session_stop(struct record_session *s);
/* Every CPU's counters added up (zeros if unreadable); the handler histogram if @hist. */
void record_session_counts(struct record_session *s, struct vmstack_cpu_counts *sum,
			   uint64_t *hist);
/* The session and its rings gone (the connection stays). */
void record_session_end(struct record_session *s);
void record_session_disconnect(struct record_session *s);

#endif
