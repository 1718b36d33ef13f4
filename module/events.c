// SPDX-License-Identifier: GPL-2.0
/*
 * A session's perf events: one per online CPU, made and released by CPU
 * hotplug, or with TASK_EVENTS one on each thread of the targets,
 * inherited by the threads they make (thread_events.c); two of each with
 * EVENT_WALL (its CPU clock and its switch-outs). Each calls the
 * handler (sample.c) with the session. A CPU's is made disabled while the
 * session is paused, a thread's when it resumes; all are released for
 * good when it stops.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "events.h"
#include "ring.h"
#include "sample.h"
#include "session.h"
#include "thread_events.h"

static enum cpuhp_state vmstack_cpuhp_state;

/* s->events: a CPU's vmstack_nr_events() in a row. */
static struct perf_event **vmstack_cpu_events(struct vmstack_session *s, unsigned int cpu)
{
	return &s->events[cpu * vmstack_nr_events(s)];
}

/* One CPU's events, all or none. Caller holds s->lock. */
static int vmstack_event_make(struct vmstack_session *s, unsigned int cpu)
{
	struct perf_event **evs = vmstack_cpu_events(s, cpu);
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int i;

	for (i = 0; i < vmstack_nr_events(s); i++) {
		vmstack_event_attr(s, i, &attr);
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, vmstack_overflow, s);
		if (IS_ERR(ev)) {
			while (i--) {
				perf_event_release_kernel(evs[i]);
				evs[i] = NULL;
			}
			return PTR_ERR(ev);
		}
		evs[i] = ev;
	}
	return 0;
}

/*
 * CPU hotplug (CPUHP_AP_ONLINE_DYN, on the CPU itself): a CPU that comes
 * online gets the session's event, one that goes down loses it; the time
 * in between is counted (OFFLINE_NS). Adding the session as an instance
 * makes the events of the CPUs online then.
 */
static int vmstack_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct vmstack_session *s = hlist_entry(node, struct vmstack_session, cpuhp);
	struct vmstack_cpu *pc = per_cpu_ptr(s->pcpu, cpu);
	int err = 0;

	mutex_lock(&s->lock);
	if (pc->offline_since) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_OFFLINE_NS,
			      ktime_get_ns() - pc->offline_since);
		pc->offline_since = 0;
	}
	if (!s->stopped && cpu < s->nr_rings && !*vmstack_cpu_events(s, cpu))
		err = vmstack_event_make(s, cpu);
	mutex_unlock(&s->lock);
	/* A CPU coming online later is not refused for it: just not sampled. */
	return s->hotplug ? 0 : err;
}

static int vmstack_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct vmstack_session *s = hlist_entry(node, struct vmstack_session, cpuhp);
	struct perf_event **evs;
	unsigned int i;

	mutex_lock(&s->lock);
	evs = cpu < s->nr_rings ? vmstack_cpu_events(s, cpu) : NULL;
	if (evs && *evs) {
		for (i = 0; i < vmstack_nr_events(s); i++) {
			perf_event_release_kernel(evs[i]);
			evs[i] = NULL;
		}
		if (!s->stopped)
			per_cpu_ptr(s->pcpu, cpu)->offline_since = ktime_get_ns();
	}
	mutex_unlock(&s->lock);
	return 0;
}

int vmstack_events_alloc(struct vmstack_session *s)
{
	s->events = kcalloc(s->nr_rings * vmstack_nr_events(s), sizeof(*s->events),
			    GFP_KERNEL_ACCOUNT);
	return s->events ? 0 : -ENOMEM;
}

int vmstack_events_start(struct vmstack_session *s, struct netlink_ext_ack *extack)
{
	int err;

	/* Paused: made at resume (thread_events.c says why). */
	if (s->cfg.task_events)
		return vmstack_thread_events_attach_all(s, extack);
	/* The events of the CPUs online now; hotplug makes the others'. */
	err = cpuhp_state_add_instance(vmstack_cpuhp_state, &s->cpuhp);
	if (err) {
		if (s->cfg.event == VMSTACK_EVENT_CYCLES)
			NL_SET_ERR_MSG(extack,
				       "cannot create a cycles event (no PMU?); try cpu-clock");
		else if (s->cfg.event == VMSTACK_EVENT_SWITCHES ||
			 s->cfg.event == VMSTACK_EVENT_WALL)
			NL_SET_ERR_MSG(extack,
				       "cannot create a context-switch or cpu-clock event");
		else
			NL_SET_ERR_MSG(extack, "cannot create a cpu-clock event");
		return err;
	}
	mutex_lock(&s->lock);
	s->hotplug = true;
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * Stop for good: release every event. When this returns no handler of
 * the session runs (perf removes an event from its CPU synchronously).
 */
void vmstack_events_stop(struct vmstack_session *s)
{
	bool hotplug;

	mutex_lock(&s->lock);
	WRITE_ONCE(s->stopped, true);
	WRITE_ONCE(s->sampling, false);
	hotplug = s->hotplug;
	s->hotplug = false;
	mutex_unlock(&s->lock);
	/* Not under s->lock: the teardown callbacks take it. */
	if (hotplug)
		cpuhp_state_remove_instance(vmstack_cpuhp_state, &s->cpuhp);
	vmstack_thread_events_release(s);
	vmstack_rings_hangup(s);
}

int vmstack_events_resume(struct vmstack_session *s, struct netlink_ext_ack *extack)
{
	unsigned int i;

	mutex_lock(&s->lock);
	if (!s->stopped && !s->sampling) {
		WRITE_ONCE(s->sampling, true);
		for (i = 0; i < s->nr_rings * vmstack_nr_events(s); i++)
			if (s->events[i])
				perf_event_enable(s->events[i]);
	}
	mutex_unlock(&s->lock);
	/* Not under s->lock (thread_events.c says why); once only. */
	if (s->cfg.task_events)
		return vmstack_thread_events_attach_all(s, extack);
	return 0;
}

void vmstack_events_free(struct vmstack_session *s)
{
	kfree(s->events);
}

int __init vmstack_events_init(void)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "vmstack:online",
					    vmstack_cpu_online, vmstack_cpu_offline);

	if (state < 0)
		return state;
	vmstack_cpuhp_state = state;
	return 0;
}

void vmstack_events_exit(void)
{
	cpuhp_remove_multi_state(vmstack_cpuhp_state);
}
