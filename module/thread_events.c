// SPDX-License-Identifier: GPL-2.0
/*
 * TASK_EVENTS: an event on each thread of each target (EVENT_WALL: two),
 * inherited by the threads (with CHILDREN, the processes) they make, so
 * that a CPU the target does not run on takes no interrupt.
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
 * sampled twice (EVENT_WALL's two are told apart by kind: a thread made
 * between the making of its creator's two holds the first only, and is
 * given the second). A thread whose creation was under way before its
 * creator had an event inherits none and is not yet on the list: it is
 * found by the scans that follow each attach (10 ms, 100 ms, 1 s later;
 * a scan that finds one starts the series again), and counted
 * (THREADS_LATE). perf record -p has the same window and no second look.
 * An inherited event starts in its parent's state, so the events are
 * made enabled, when sampling starts (resume), never made disabled and
 * enabled later (perf_event_enable() enables one event, not the copies
 * its thread's children made meanwhile).
 *
 * Locks: s->thread_lock guards what this file keeps, and is taken with
 * s->lock not held: making a task's first event may enable perf's
 * scheduler hooks (a static key: the CPU hotplug lock), and the CPU
 * hotplug callbacks take s->lock (events.c). s->lock is taken under it,
 * briefly, to read the target set.
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

/* After an attach, the waits before each later scan: 10 ms, 100 ms, 1 s. */
static const unsigned int vmstack_rescan_gap_ms[] = { 10, 90, 900 };

/*
 * The lists below are walked by their list_heads, and an entry is made
 * only of an element: list_for_each_entry*() makes one of the head too,
 * when it ends, a misaligned pointer to a task (which must be aligned to
 * 64 bytes) that UBSAN's alignment check reports (the debug lane's).
 */

/*
 * Bit i of the session's events (vmstack_event_attr()'s @i) that @ev is:
 * a WALL session's switch-out event is its second.
 */
static u32 vmstack_event_bit(struct vmstack_session *s, struct perf_event *ev)
{
	return vmstack_nr_events(s) > 1 && vmstack_event_switches(ev) ? 2 : 1;
}

/*
 * Which events of @s does thread @t hold (made here, or inherited from
 * one), as bits? A thread made between the two events of a WALL
 * thread's making inherited the first only.
 */
static u32 vmstack_thread_events_held(struct task_struct *t, struct vmstack_session *s)
{
	struct perf_event_context *ctx;
	struct list_head *pos;
	u32 held = 0;
	int i;

	rcu_read_lock();
	for (i = 0; i < VMSTACK_TASK_PERF_CTXS; i++) {
		ctx = vmstack_task_perf_ctx(t, i);
		if (!ctx)
			continue;
		for (pos = READ_ONCE(ctx->event_list.next); pos != &ctx->event_list;
		     pos = READ_ONCE(pos->next)) {
			struct perf_event *ev = list_entry(pos, struct perf_event, event_entry);

			if (READ_ONCE(ev->overflow_handler_context) == s)
				held |= vmstack_event_bit(s, ev);
		}
	}
	rcu_read_unlock();
	return held;
}

/*
 * Room for @n more events, up to VMSTACK_MAX_THREAD_EVENTS held at once
 * (those of threads gone are released first: reap below): how many fit,
 * or an error. Caller holds s->thread_lock.
 */
static int vmstack_thread_events_room(struct vmstack_session *s, u32 n,
				      struct netlink_ext_ack *extack)
{
	struct perf_event **ev;
	u32 cap;
	int err;

	n = min_t(u32, n, VMSTACK_MAX_THREAD_EVENTS - s->nr_thread_events);
	if (s->nr_thread_events + n <= s->thread_events_cap)
		return n;
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
	return n;
}

static void vmstack_thread_events_count(struct vmstack_session *s, int attr, u64 v)
{
	struct vmstack_cpu *pc;

	if (!v)
		return;
	pc = get_cpu_ptr(s->pcpu);
	vmstack_count(&pc->stats, attr, v);
	put_cpu_ptr(s->pcpu);
}

/* Until it stops, once it samples: events are made enabled (see above). */
static bool vmstack_thread_events_wanted(struct vmstack_session *s)
{
	return READ_ONCE(s->sampling) && !READ_ONCE(s->stopped);
}

/*
 * The events thread @t lacks (WALL's two, or the one it did not
 * inherit), inherited by the threads it makes: all or none made, 0 or
 * an error (-ESRCH: it exited). Caller holds s->thread_lock and has room
 * for them.
 */
static int vmstack_thread_events_make(struct vmstack_session *s, struct task_struct *t)
{
	u32 held = vmstack_thread_events_held(t, s), made = 0, i;
	struct perf_event_attr attr;
	struct perf_event *ev;

	for (i = 0; i < vmstack_nr_events(s); i++) {
		if (held & (1U << i))
			continue;
		vmstack_event_attr(s, i, &attr);
		attr.inherit = 1;
		/* Threads only, unless the session follows child processes too. */
		attr.inherit_thread = !s->cfg.children;
		ev = perf_event_create_kernel_counter(&attr, -1, t, vmstack_overflow, s);
		if (IS_ERR(ev)) {
			/* Those made here, and the copies they made meanwhile. */
			while (made--)
				perf_event_release_kernel(s->thread_events[--s->nr_thread_events]);
			return PTR_ERR(ev);
		}
		s->thread_events[s->nr_thread_events++] = ev;
		made++;
	}
	return 0;
}

/*
 * Give each thread of process @tgid that holds no event of @s one.
 * @late: a scan after the attach (its finds are counted apart). The
 * number made, or an error. Caller holds s->thread_lock.
 */
static int vmstack_thread_events_scan(struct vmstack_session *s, struct pid *tgid,
				      bool late, struct netlink_ext_ack *extack)
{
	struct task_struct *leader, *t, **tasks;
	struct list_head *head, *pos;
	u32 n = 0, i, fit, made = 0, held = 0, nev = vmstack_nr_events(s);
	u32 all = (1U << nev) - 1, mask;
	int room, err = 0;

	/* Threads past the limit are counted (THREADS_OVER), never given one. */
	tasks = kvmalloc_array(VMSTACK_MAX_THREAD_EVENTS, sizeof(*tasks), GFP_KERNEL_ACCOUNT);
	if (!tasks)
		return -ENOMEM;
	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	if (leader) {
		/* for_each_thread(), by the list_heads (above). */
		head = &leader->signal->thread_head;
		for (pos = READ_ONCE(head->next); pos != head; pos = READ_ONCE(pos->next)) {
			t = list_entry(pos, struct task_struct, thread_node);
			if (t->flags & PF_EXITING)
				continue;
			mask = vmstack_thread_events_held(t, s);
			held += !!mask;
			if (mask == all)
				continue;
			if (n == VMSTACK_MAX_THREAD_EVENTS)
				break;
			get_task_struct(t);
			tasks[n++] = t;
		}
	}
	rcu_read_unlock();
	/*
	 * A later scan gives none to a process none of whose threads holds
	 * one: perf removed them (an exec that made it not dumpable, a
	 * setuid one: perf_event_exit_task() in begin_new_exec()), and it is
	 * no longer sampled, as under perf -p; or each thread that had one
	 * exited.
	 */
	if (late && !held) {
		for (i = 0; i < n; i++)
			put_task_struct(tasks[i]);
		n = 0;
	}
	room = vmstack_thread_events_room(s, n * nev, extack);
	if (room < 0)
		err = room;
	/* Threads that get all their events. */
	fit = room > 0 ? room / nev : 0;
	for (i = 0; i < n; i++) {
		if (!err && i < fit) {
			err = vmstack_thread_events_make(s, tasks[i]);
			if (!err)
				made++;
			else if (err == -ESRCH)		/* it exited meanwhile */
				err = 0;
			else
				NL_SET_ERR_MSG(extack, "cannot create an event on a thread of the target");
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
	vmstack_thread_events_count(s, VMSTACK_CS_A_THREAD_EVENTS, made);
	if (late)
		vmstack_thread_events_count(s, VMSTACK_CS_A_THREADS_LATE, made);
	/* Once a thread: a later scan would find those it could not give one again. */
	if (!err && !late && fit < n)
		vmstack_thread_events_count(s, VMSTACK_CS_A_THREADS_OVER, n - fit);
	return err ? err : made;
}

/*
 * Release the events of threads that exited (perf set them EXIT as it
 * took them off their task) and no thread made holds a copy of: they
 * count against VMSTACK_MAX_THREAD_EVENTS and pin their task and its
 * context until released. A process -p follows gets events of its own
 * (child processes inherit none), so without this a long recording of a
 * forking server would run out. Caller holds s->thread_lock.
 */
static void vmstack_thread_events_reap(struct vmstack_session *s)
{
	struct perf_event *ev;
	u32 i, kept = 0;
	bool done;

	for (i = 0; i < s->nr_thread_events; i++) {
		ev = s->thread_events[i];
		/* A copy leaves child_list when its thread exits (DETACH_CHILD). */
		mutex_lock(&ev->child_mutex);
		done = READ_ONCE(ev->state) == PERF_EVENT_STATE_EXIT &&
		       list_empty(&ev->child_list);
		mutex_unlock(&ev->child_mutex);
		if (done)
			perf_event_release_kernel(ev);
		else
			s->thread_events[kept++] = ev;
	}
	s->nr_thread_events = kept;
}

/*
 * Scan every target's threads: the number of events made, or the first
 * error (the other targets are scanned still). Caller holds
 * s->thread_lock.
 */
static int vmstack_thread_events_scan_all(struct vmstack_session *s, bool late,
					  struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p;
	struct pid **pids;
	unsigned int bkt;
	int ret, made = 0, err = 0;
	u32 n = 0, i;

	vmstack_thread_events_reap(s);
	pids = kvmalloc_array(VMSTACK_MAX_TARGETS, sizeof(*pids), GFP_KERNEL_ACCOUNT);
	if (!pids)
		return -ENOMEM;
	/* Under s->lock: TARGET_DEL drops its pid at once, not after RCU. */
	mutex_lock(&s->lock);
	hash_for_each(s->procs, bkt, p, node)
		if (n < VMSTACK_MAX_TARGETS)
			pids[n++] = get_pid(p->tgid);
	mutex_unlock(&s->lock);
	for (i = 0; i < n; i++) {
		ret = vmstack_thread_events_scan(s, pids[i], late, extack);
		if (ret < 0 && !err)
			err = ret;
		else if (ret > 0)
			made += ret;
		put_pid(pids[i]);
	}
	kvfree(pids);
	return err ? err : made;
}

/* The series of later scans, from its start. Caller holds s->thread_lock. */
static void vmstack_thread_events_rescan_soon(struct vmstack_session *s)
{
	s->rescans = 0;
	mod_delayed_work(system_wq, &s->rescan,
			 msecs_to_jiffies(vmstack_rescan_gap_ms[0]));
}

static void vmstack_thread_events_rescan(struct work_struct *work)
{
	struct vmstack_session *s = container_of(to_delayed_work(work),
						 struct vmstack_session, rescan);
	int made;

	mutex_lock(&s->thread_lock);
	if (vmstack_thread_events_wanted(s)) {
		/* An error leaves those threads unsampled, as an exit would. */
		made = vmstack_thread_events_scan_all(s, true, NULL);
		/* Threads it found may have been making more: again. */
		s->rescans = made > 0 ? 0 : s->rescans + 1;
		if (s->rescans < ARRAY_SIZE(vmstack_rescan_gap_ms))
			queue_delayed_work(system_wq, &s->rescan,
					   msecs_to_jiffies(vmstack_rescan_gap_ms[s->rescans]));
	}
	mutex_unlock(&s->thread_lock);
}

void vmstack_thread_events_init(struct vmstack_session *s)
{
	mutex_init(&s->thread_lock);
	INIT_DELAYED_WORK(&s->rescan, vmstack_thread_events_rescan);
}

int vmstack_thread_events_attach_all(struct vmstack_session *s,
				     struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&s->thread_lock);
	if (!s->threads_attached && vmstack_thread_events_wanted(s)) {
		/* Targets added from now on get theirs at once. */
		s->threads_attached = true;
		ret = vmstack_thread_events_scan_all(s, false, extack);
		vmstack_thread_events_rescan_soon(s);
	}
	mutex_unlock(&s->thread_lock);
	return ret < 0 ? ret : 0;
}

int vmstack_thread_events_attach(struct vmstack_session *s, struct pid *tgid,
				 struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&s->thread_lock);
	/* Else vmstack_thread_events_attach_all() will, or none is wanted. */
	if (s->threads_attached && vmstack_thread_events_wanted(s)) {
		vmstack_thread_events_reap(s);
		ret = vmstack_thread_events_scan(s, tgid, false, extack);
		vmstack_thread_events_rescan_soon(s);
	}
	mutex_unlock(&s->thread_lock);
	return ret < 0 ? ret : 0;
}

void vmstack_thread_events_release(struct vmstack_session *s)
{
	struct perf_event **ev;
	u32 n, i, cap;

	/* s->stopped is set: a scan that runs now makes nothing. */
	cancel_delayed_work_sync(&s->rescan);
	mutex_lock(&s->thread_lock);
	ev = s->thread_events;
	n = s->nr_thread_events;
	cap = s->thread_events_cap;
	s->thread_events = NULL;
	s->nr_thread_events = 0;
	s->thread_events_cap = 0;
	mutex_unlock(&s->thread_lock);
	/* The inherited events go with their parents, as synchronously. */
	for (i = 0; i < n; i++)
		perf_event_release_kernel(ev[i]);
	kfree(ev);
	if (cap)
		vmstack_account_uncharge(s->account, (u64)cap * sizeof(*ev));
}
