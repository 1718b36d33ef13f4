/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's perf events (events.c): one per online CPU, made and
 * released by CPU hotplug, or with TASK_EVENTS one on the target,
 * inherited by its threads. They call sample.c's handler.
 */
#ifndef _VMSTACK_EVENTS_H
#define _VMSTACK_EVENTS_H

struct netlink_ext_ack;
struct vmstack_session;

/* The hotplug state every session is an instance of (module load, unload). */
int vmstack_events_init(void);
void vmstack_events_exit(void);
/* Room for one event per CPU, before any is made. */
int vmstack_events_alloc(struct vmstack_session *s);
/* Make the events: the target's, or the online CPUs' (hotplug the others'). */
int vmstack_events_start(struct vmstack_session *s, struct netlink_ext_ack *extack);
/* Stop for good: once it returns, no handler of the session runs. */
void vmstack_events_stop(struct vmstack_session *s);
void vmstack_events_resume(struct vmstack_session *s);
/* After vmstack_events_stop(). */
void vmstack_events_free(struct vmstack_session *s);

#endif /* _VMSTACK_EVENTS_H */
