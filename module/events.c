// SPDX-License-Identifier: GPL-2.0
/*
 * A session's perf events: one per online CPU, made and released by CPU
 * hotplug, or with TASK_EVENTS one on the target, inherited by its
 * threads. Each calls the handler (sample.c) with the session. Made
 * disabled while the session is paused; released for good when it stops.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "events.h"
#include "ring.h"
#include "sample.h"
#include "session.h"

static enum cpuhp_state vmstack_cpuhp_state;

/* The session's event: disabled unless it samples. */
static void vmstack_event_attr(struct vmstack_session *s, struct perf_event_attr *attr)
{
	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.freq = 1,
		.sample_freq = s->cfg.freq,
		.disabled = !s->sampling,
	};
	if (s->cfg.event == VMSTACK_EVENT_CYCLES) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
}

/* One CPU's event. Caller holds s->lock. */
static int vmstack_event_make(struct vmstack_session *s, unsigned int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	vmstack_event_attr(s, &attr);
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, vmstack_overflow, s);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	s->events[cpu] = ev;
	return 0;
}

/*
 * TASK_EVENTS: one event on the target's only thread, inherited by each
 * thread it creates (inherit_thread: not by child processes), so it fires
 * only while a thread of the target runs and a CPU the target does not
 * use takes no interrupt. No thread can escape it if none exists besides
 * the one it is on once it is in place: a thread made before would be
 * counted below (one made by a clone already past perf's inheritance but
 * not yet counted is the caller's to prevent: it holds the target). No
 * hotplug either: the event follows its task to any CPU.
 */
static int vmstack_task_event_make(struct vmstack_session *s,
				   struct netlink_ext_ack *extack)
{
	struct perf_event_attr attr;
	struct task_struct *task;
	struct perf_event *ev;
	int threads;

	task = get_pid_task(s->first->tgid, PIDTYPE_PID);
	if (!task) {
		NL_SET_ERR_MSG(extack, "no such process");
		return -ESRCH;
	}
	vmstack_event_attr(s, &attr);
	attr.inherit = 1;
	/* Threads only, unless the session follows child processes too. */
	attr.inherit_thread = !s->cfg.children;
	ev = perf_event_create_kernel_counter(&attr, -1, task, vmstack_overflow, s);
	threads = get_nr_threads(task);
	put_task_struct(task);
	if (IS_ERR(ev)) {
		NL_SET_ERR_MSG(extack, "cannot create the target's event");
		return PTR_ERR(ev);
	}
	if (threads != 1) {
		perf_event_release_kernel(ev);
		NL_SET_ERR_MSG(extack, "TASK_EVENTS needs a target of one thread");
		return -EINVAL;
	}
	mutex_lock(&s->lock);
	s->task_event = ev;
	mutex_unlock(&s->lock);
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
	if (!s->stopped && !s->events[cpu] && cpu < s->nr_rings)
		err = vmstack_event_make(s, cpu);
	mutex_unlock(&s->lock);
	/* A CPU coming online later is not refused for it: just not sampled. */
	return s->hotplug ? 0 : err;
}

static int vmstack_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct vmstack_session *s = hlist_entry(node, struct vmstack_session, cpuhp);

	mutex_lock(&s->lock);
	if (s->events[cpu]) {
		perf_event_release_kernel(s->events[cpu]);
		s->events[cpu] = NULL;
		if (!s->stopped)
			per_cpu_ptr(s->pcpu, cpu)->offline_since = ktime_get_ns();
	}
	mutex_unlock(&s->lock);
	return 0;
}

int vmstack_events_alloc(struct vmstack_session *s)
{
	s->events = kcalloc(s->nr_rings, sizeof(*s->events), GFP_KERNEL_ACCOUNT);
	return s->events ? 0 : -ENOMEM;
}

int vmstack_events_start(struct vmstack_session *s, struct netlink_ext_ack *extack)
{
	int err;

	if (s->cfg.task_events)
		return vmstack_task_event_make(s, extack);
	/* The events of the CPUs online now; hotplug makes the others'. */
	err = cpuhp_state_add_instance(vmstack_cpuhp_state, &s->cpuhp);
	if (err) {
		if (s->cfg.event == VMSTACK_EVENT_CYCLES)
			NL_SET_ERR_MSG(extack,
				       "cannot create a cycles event (no PMU?); try cpu-clock");
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
	struct perf_event *task_event;
	bool hotplug;

	mutex_lock(&s->lock);
	WRITE_ONCE(s->stopped, true);
	s->sampling = false;
	hotplug = s->hotplug;
	s->hotplug = false;
	task_event = s->task_event;
	s->task_event = NULL;
	mutex_unlock(&s->lock);
	/* Not under s->lock: the teardown callbacks take it. */
	if (hotplug)
		cpuhp_state_remove_instance(vmstack_cpuhp_state, &s->cpuhp);
	/* The inherited events go with it, as synchronously. */
	if (task_event)
		perf_event_release_kernel(task_event);
	vmstack_rings_hangup(s);
}

void vmstack_events_resume(struct vmstack_session *s)
{
	unsigned int cpu;

	mutex_lock(&s->lock);
	if (!s->stopped) {
		s->sampling = true;
		for (cpu = 0; cpu < s->nr_rings; cpu++)
			if (s->events[cpu])
				perf_event_enable(s->events[cpu]);
		if (s->task_event)
			perf_event_enable(s->task_event);
	}
	mutex_unlock(&s->lock);
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
