// SPDX-License-Identifier: GPL-2.0
/*
 * TASK_EVENTS: an event on each thread of each target, inherited by the
 * threads (with CHILDREN, the processes) they make, so that a CPU the
 * target does not run on takes no interrupt.
 *
 * The threads of a running process may be making more while their events
 * are made. Three facts make that safe (read in 6.1's kernel/fork.c and
 * kernel/events/core.c):
 *  - a new thread inherits in copy_process() (perf_event_init_task())
 *    before it joins its group's thread list, and never after: once a
 *    thread is on the list, the events it will ever inherit are there;
 *  - an inherited event is made with its parent's overflow handler and
 *    context, so the session's own pointer tells its events from others;
 *  - a task's contexts, their event lists and the events are published
 *    and freed under RCU.
 * So a thread on the list that holds no event of the session is given
 * one, and one that holds one (inherited) is given none: no thread is
 * sampled twice. A thread whose creation was under way before its
 * creator had an event inherits none and is not yet on the list: it is
 * found by the scans that follow each attach (10 ms, 100 ms, 1 s later),
 * and counted (THREADS_LATE). perf record -p has the same window and no
 * second look. An inherited event starts in its parent's state, so the
 * events are made enabled, when sampling starts (resume), never made
 * disabled and enabled later (perf_event_enable() enables one event, not
 * the copies its thread's children made meanwhile).
 */
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "account.h"
#include "compat.h"
#include "events.h"
#include "sample.h"
#include "session.h"
#include "thread_events.h"

/* After each attach, how long until each later scan. */
static const unsigned int vmstack_rescan_ms[] = { 10, 100, 1000 };

/*
 * The lists below are walked by their list_heads, and an entry is made
 * only of an element: list_for_each_entry*() makes one of the head too,
 * when it ends, a misaligned pointer to a task (which must be aligned to
 * 64 bytes) that UBSAN's alignment check reports (the debug lane's).
 */

/* Does thread @t hold an event of @s (made here, or inherited from one)? */
static bool vmstack_thread_has_event(struct task_struct *t, struct vmstack_session *s)
{
	struct perf_event_context *ctx;
	struct list_head *pos;
	bool found = false;
	int i;

	rcu_read_lock();
	for (i = 0; i < VMSTACK_TASK_PERF_CTXS && !found; i++) {
		ctx = vmstack_task_perf_ctx(t, i);
		if (!ctx)
			continue;
		for (pos = READ_ONCE(ctx->event_list.next); pos != &ctx->event_list;
		     pos = READ_ONCE(pos->next)) {
			struct perf_event *ev = list_entry(pos, struct perf_event, event_entry);

			if (READ_ONCE(ev->overflow_handler_context) == s) {
				found = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return found;
}

/* Room for @n more events. Caller holds s->lock. */
static int vmstack_thread_events_room(struct vmstack_session *s, u32 n,
				      struct netlink_ext_ack *extack)
{
	struct perf_event **ev;
	u32 cap;
	int err;

	if (s->nr_thread_events + n <= s->thread_events_cap)
		return 0;
	if (s->nr_thread_events + n > VMSTACK_MAX_THREAD_EVENTS) {
		NL_SET_ERR_MSG(extack,
			       "more threads than a session gives events to (VMSTACK_MAX_THREAD_EVENTS)");
		return -E2BIG;
	}
	cap = min_t(u32, max(2 * s->thread_events_cap, s->nr_thread_events + n),
		    VMSTACK_MAX_THREAD_EVENTS);
	err = vmstack_account_charge(s->account,
				     (u64)(cap - s->thread_events_cap) * sizeof(*ev), extack);
	if (err)
		return err;
	ev = krealloc_array(s->thread_events, cap, sizeof(*ev), GFP_KERNEL_ACCOUNT);
	if (!ev) {
		vmstack_account_uncharge(s->account,
					 (u64)(cap - s->thread_events_cap) * sizeof(*ev));
		return -ENOMEM;
	}
	s->thread_events = ev;
	s->thread_events_cap = cap;
	return 0;
}

static void vmstack_thread_events_count(struct vmstack_session *s, u64 made, bool late)
{
	struct vmstack_cpu *pc = get_cpu_ptr(s->pcpu);

	vmstack_count(&pc->stats, VMSTACK_CS_A_THREAD_EVENTS, made);
	if (late)
		vmstack_count(&pc->stats, VMSTACK_CS_A_THREADS_LATE, made);
	put_cpu_ptr(s->pcpu);
}

/*
 * Give each thread of process @tgid that holds no event of @s one.
 * @late: a scan after the attach (its finds are counted apart). Caller
 * holds s->lock, and the session samples.
 */
static int vmstack_thread_events_scan(struct vmstack_session *s, struct pid *tgid,
				      bool late, struct netlink_ext_ack *extack)
{
	struct task_struct *leader, *t, **tasks;
	struct list_head *head, *pos;
	struct perf_event_attr attr;
	struct perf_event *ev;
	u32 n = 0, i, max, made = 0;
	int err = 0;

	max = VMSTACK_MAX_THREAD_EVENTS - s->nr_thread_events;
	tasks = kvmalloc_array(max + 1, sizeof(*tasks), GFP_KERNEL_ACCOUNT);
	if (!tasks)
		return -ENOMEM;
	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	if (leader) {
		/* for_each_thread(), by the list_heads (above). */
		head = &leader->signal->thread_head;
		for (pos = READ_ONCE(head->next); pos != head; pos = READ_ONCE(pos->next)) {
			t = list_entry(pos, struct task_struct, thread_node);
			if ((t->flags & PF_EXITING) || vmstack_thread_has_event(t, s))
				continue;
			/* One past the limit is enough to refuse. */
			if (n > max)
				break;
			get_task_struct(t);
			tasks[n++] = t;
		}
	}
	rcu_read_unlock();
	err = vmstack_thread_events_room(s, n, extack);
	vmstack_event_attr(s, &attr);
	attr.inherit = 1;
	/* Threads only, unless the session follows child processes too. */
	attr.inherit_thread = !s->cfg.children;
	for (i = 0; i < n; i++) {
		if (!err) {
			ev = perf_event_create_kernel_counter(&attr, -1, tasks[i],
							      vmstack_overflow, s);
			if (!IS_ERR(ev)) {
				s->thread_events[s->nr_thread_events++] = ev;
				made++;
			} else if (PTR_ERR(ev) != -ESRCH) {
				/* -ESRCH: it exited meanwhile. */
				err = PTR_ERR(ev);
				NL_SET_ERR_MSG(extack, "cannot create an event on a thread of the target");
			}
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	if (made)
		vmstack_thread_events_count(s, made, late);
	return err;
}

/* Scan again soon: a thread under way while the last scan ran. */
static void vmstack_thread_events_rescan_soon(struct vmstack_session *s)
{
	s->rescans = 0;
	mod_delayed_work(system_wq, &s->rescan,
			 msecs_to_jiffies(vmstack_rescan_ms[0]));
}

static void vmstack_thread_events_rescan(struct work_struct *work)
{
	struct vmstack_session *s = container_of(to_delayed_work(work),
						 struct vmstack_session, rescan);
	struct vmstack_proc *p;
	unsigned int bkt;

	mutex_lock(&s->lock);
	if (!s->stopped && s->sampling) {
		/* An error here leaves those threads unsampled, as an exit would. */
		hash_for_each(s->procs, bkt, p, node)
			vmstack_thread_events_scan(s, p->tgid, true, NULL);
		if (++s->rescans < ARRAY_SIZE(vmstack_rescan_ms))
			queue_delayed_work(system_wq, &s->rescan,
					   msecs_to_jiffies(vmstack_rescan_ms[s->rescans] -
							    vmstack_rescan_ms[s->rescans - 1]));
	}
	mutex_unlock(&s->lock);
}

void vmstack_thread_events_init(struct vmstack_session *s)
{
	INIT_DELAYED_WORK(&s->rescan, vmstack_thread_events_rescan);
}

int vmstack_thread_events_attach(struct vmstack_session *s, struct pid *tgid,
				 struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&s->lock);
	err = vmstack_thread_events_scan(s, tgid, false, extack);
	if (!err)
		vmstack_thread_events_rescan_soon(s);
	return err;
}

int vmstack_thread_events_attach_all(struct vmstack_session *s,
				     struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p;
	unsigned int bkt;
	int err = 0;

	lockdep_assert_held(&s->lock);
	hash_for_each(s->procs, bkt, p, node) {
		err = vmstack_thread_events_scan(s, p->tgid, false, extack);
		if (err)
			break;
	}
	/* Targets added from now on get theirs at once. */
	s->threads_attached = true;
	if (!err)
		vmstack_thread_events_rescan_soon(s);
	return err;
}

void vmstack_thread_events_release(struct vmstack_session *s)
{
	struct perf_event **ev;
	u32 n, i, cap;

	/* s->stopped is set: a scan that runs now makes nothing. */
	cancel_delayed_work_sync(&s->rescan);
	mutex_lock(&s->lock);
	ev = s->thread_events;
	n = s->nr_thread_events;
	cap = s->thread_events_cap;
	s->thread_events = NULL;
	s->nr_thread_events = 0;
	s->thread_events_cap = 0;
	mutex_unlock(&s->lock);
	/* The inherited events go with their parents, as synchronously. */
	for (i = 0; i < n; i++)
		perf_event_release_kernel(ev[i]);
	kfree(ev);
	if (cap)
		vmstack_account_uncharge(s->account, (u64)cap * sizeof(*ev));
}
