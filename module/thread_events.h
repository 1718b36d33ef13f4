/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TASK_EVENTS on threads (thread_events.c): an event on each thread of
 * each target that holds none of the session's, inherited by the threads
 * it makes; scans after each attach find threads whose creation was
 * under way. Made enabled, when the session samples.
 */
#ifndef _VMSTACK_THREAD_EVENTS_H
#define _VMSTACK_THREAD_EVENTS_H

struct netlink_ext_ack;
struct pid;
struct vmstack_session;

/* Once, when the session is allocated: release may run on any error. */
void vmstack_thread_events_init(struct vmstack_session *s);
/*
 * The threads of process @tgid (a target added after the others'), or of
 * every target (at resume): nothing before resume or after stop. Caller
 * holds neither s->lock nor s->thread_lock.
 */
int vmstack_thread_events_attach(struct vmstack_session *s, struct pid *tgid,
				 struct netlink_ext_ack *extack);
int vmstack_thread_events_attach_all(struct vmstack_session *s,
				     struct netlink_ext_ack *extack);
/* Once s->stopped is set: every event released, the later scans cancelled. */
void vmstack_thread_events_release(struct vmstack_session *s);

#endif /* _VMSTACK_THREAD_EVENTS_H */
