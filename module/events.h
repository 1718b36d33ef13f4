/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's perf events (events.c): one per online CPU, made and
 * released by CPU hotplug, or with TASK_EVENTS one on each thread of the
 * targets, inherited by the threads they make (thread_events.c). They
 * call sample.c's handler.
 */
#ifndef _VMSTACK_EVENTS_H
#define _VMSTACK_EVENTS_H

#include <linux/perf_event.h>
#include "session.h"

struct netlink_ext_ack;

/* Events on each CPU or thread: WALL's two, any other event's one. */
static inline unsigned int vmstack_nr_events(const struct vmstack_session *s)
{
	return s->cfg.event == VMSTACK_EVENT_WALL ? 2 : 1;
}

/*
 * Does @ev count switch-outs? The handler asks the event, not the
 * session: a WALL session's events are of both kinds.
 */
static inline bool vmstack_event_switches(const struct perf_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       ev->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES;
}

/*
 * The attributes of the session's event @i (below vmstack_nr_events())
 * of a CPU or thread: disabled unless it samples. Inline: thread_events.c,
 * below events.c, uses it too.
 */
static inline void vmstack_event_attr(const struct vmstack_session *s, unsigned int i,
				      struct perf_event_attr *attr)
{
	u32 event = s->cfg.event;

	/* WALL: the CPU clock's samples, then the switch-outs. */
	if (event == VMSTACK_EVENT_WALL)
		event = i ? VMSTACK_EVENT_SWITCHES : VMSTACK_EVENT_CPU_CLOCK;
	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.freq = 1,
		.sample_freq = s->cfg.freq,
		.disabled = !s->sampling,
	};
	if (event == VMSTACK_EVENT_CYCLES) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else if (event == VMSTACK_EVENT_SWITCHES) {
		/*
		 * Every switch-out: perf counts it in the task's context
		 * before switching that out (perf_event_task_sched_out()),
		 * and a period of 1 overflows once per switch, never
		 * throttled (perf_swevent_event()).
		 */
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		attr->freq = 0;
		attr->sample_period = 1;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
}

/* The hotplug state every session is an instance of (module load, unload). */
int vmstack_events_init(void);
void vmstack_events_exit(void);
/* Room for the events of every CPU, before any is made. */
int vmstack_events_alloc(struct vmstack_session *s);
/* Make the events: the targets' threads', or the online CPUs' (hotplug the others'). */
int vmstack_events_start(struct vmstack_session *s, struct netlink_ext_ack *extack);
/* Stop for good: once it returns, no handler of the session runs. */
void vmstack_events_stop(struct vmstack_session *s);
/* Start sampling (TASK_EVENTS: the threads' events are made now). */
int vmstack_events_resume(struct vmstack_session *s, struct netlink_ext_ack *extack);

/* After vmstack_events_stop(). */
void vmstack_events_free(struct vmstack_session *s);

#endif /* _VMSTACK_EVENTS_H */
