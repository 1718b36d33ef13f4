/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session as every part of the module sees it: what SESSION_START
 * asked for, its state per CPU (the handler's alone), its processes, and
 * what holds them: rules, rings, events. The file whose descriptor the
 * caller holds owns it (session.c).
 */
#ifndef _VMSTACK_SESSION_H
#define _VMSTACK_SESSION_H

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/local64.h>
#include <linux/vmstack.h>
#include "access.h"
#include "ring.h"
#include "walk.h"

struct cgroup;
struct file;
struct mm_struct;
struct netlink_ext_ack;
struct page;
struct perf_event;
struct pid;
struct pid_namespace;
struct user_struct;
struct vmstack_account;
struct vmstack_caller;

struct vmstack_cpu_stats {
	/* Indexed by VMSTACK_COUNTER(VMSTACK_CS_A_*): the uapi enum is the table. */
	local64_t counter[VMSTACK_NR_COUNTERS];
	u64 hist[VMSTACK_HIST_BUCKETS];	/* only this CPU's handler writes */
};

static inline void vmstack_count(struct vmstack_cpu_stats *st, int attr, u64 v)
{
	local64_add(v, &st->counter[VMSTACK_COUNTER(attr)]);
}

/* Per-CPU state of a session, touched only by the handler on that CPU. */
struct vmstack_cpu {
	struct vmstack_cpu_stats stats;
	struct vmstack_ring ring;
	int busy;			/* guards against a nested handler */
	u64 window_start;		/* the time budget's window (sample.c) */
	u64 window_ns;			/* handler time spent in it */
	u64 offline_since;		/* hotplug (events.c): when it went down */
	/* JIT anchors proved here (walk.h), valid for the process jit_mm. */
	unsigned long jit_seen[VMSTACK_VM_MAX];
	const struct mm_struct *jit_mm;
	struct vmstack_uw_cache uw_cache;	/* rows by address (walk.h) */
	u64 ips[2 * VMSTACK_MAX_DEPTH];	/* kernel then user frames */
};

struct vmstack_session_cfg {
	u32 pid;
	u32 freq;
	u32 event;
	u32 stacks;
	u32 max_depth;
	u32 ring_pages;
	bool paused;
	bool task_events;
	bool all;		/* every process (3.5) */
	bool cgroup;		/* the processes of cgroup_fd's cgroup (3.5) */
	bool children;		/* TASK_EVENTS inherited by child processes (3.5) */
	u32 cgroup_fd;
};

/* A process's ABI 4 VM descriptors, freed after a grace period with it. */
struct vmstack_vm_set {
	struct rcu_head rcu;
	struct vmstack_vm_desc4 d[VMSTACK_VM_MAX];
};

/*
 * One process of a session's target set (target.c): the handler finds it
 * by its struct pid and walks with its rules and VMs. Found and read
 * under RCU by the handler; added, changed and removed under s->lock.
 */
struct vmstack_proc {
	struct hlist_node node;		/* in s->procs, by tgid */
	struct rcu_head rcu;
	struct pid *tgid;		/* the process, not its number */
	u32 nr;				/* its number in the session's namespace */
	/*
	 * What the handler checks before reading its memory (access.h); once
	 * that fails, none is read (revoked) until the process is added
	 * again: a setuid program that makes itself dumpable again, or
	 * drops back to the caller's ids, keeps what it read as root.
	 */
	struct vmstack_consent consent;
	bool revoked;
	/* User unwind rules (unwind_table.c). */
	struct vmstack_uw_set __rcu *uw_set;
	struct vmstack_uw_table *uw_pending;	/* being uploaded */
	u64 uw_pending_start;			/* where it goes */
	u32 uw_pending_next;
	/*
	 * VM descriptors: only added; nr_vms is published last. Allocated
	 * at the first VM_ADD (~9 KiB: most targets have none).
	 */
	struct vmstack_vm_set *vms;
	u32 nr_vms;
};

#define VMSTACK_PROC_HASH_BITS	8
#define VMSTACK_UW_KEY_HASH_BITS	8

struct vmstack_session {
	struct list_head node;		/* in vmstack_sessions */
	struct hlist_node cpuhp;	/* an instance of the hotplug state */
	u32 id;
	struct vmstack_session_cfg cfg;
	struct pid_namespace *pid_ns;	/* for the numbers in records */
	kuid_t owner;			/* for the per-user session limit */
	struct vmstack_account *account;	/* the owner's memory (account.h) */
	u64 account_base;		/* charged for the session itself */
	u64 net_cookie;			/* started from there (GET_STATUS) */
	fl_owner_t owner_files;		/* the starter's file table (flush) */
	struct user_struct *user;	/* charged for the rings' locked memory */
	unsigned long locked_pages;
	struct vmstack_cpu __percpu *pcpu;
	/* The rings (ring.c): pages charged to the caller, mapped by the reader. */
	struct page **pages;
	unsigned long nr_pages;
	void *area;
	size_t area_size;
	size_t ring_stride;		/* control page + data pages */
	unsigned int nr_rings;
	bool rings_ready;		/* each CPU's ring set up, and ring_wake */
	wait_queue_head_t ring_wait;	/* poll() on the file */
	struct irq_work ring_wake;	/* queued by the handlers (ring.c) */
	/*
	 * lock: the events (netlink and CPU hotplug change them), and every
	 * writer of the target set, its rules and descriptors.
	 */
	struct mutex lock;
	struct perf_event **events;	/* by CPU; NULL where none */
	/* TASK_EVENTS (thread_events.c): the events made on threads. */
	struct mutex thread_lock;	/* taken without s->lock (it says why) */
	struct perf_event **thread_events;
	u32 nr_thread_events;
	u32 thread_events_cap;
	bool threads_attached;		/* the targets' threads have them */
	struct delayed_work rescan;	/* finds threads made meanwhile */
	unsigned int rescans;		/* done since the last attach */
	bool sampling;			/* resumed, not stopped */
	bool stopped;			/* for good: no event will be made */
	bool hotplug;			/* an instance of the hotplug state */
	/* The target set (target.c): the first process is the default one. */
	DECLARE_HASHTABLE(procs, VMSTACK_PROC_HASH_BITS);
	struct vmstack_proc *first;
	u32 nr_procs;
	/*
	 * ALL or CGROUP_FD: what a process outside the set is walked with
	 * (no rules, no VMs: frame pointers only), and the cgroup, if any.
	 */
	struct vmstack_proc undescribed;
	struct cgroup *cgrp;
	/* Unwind rules of all the set's processes (unwind_table.c). */
	DECLARE_HASHTABLE(uw_keys, VMSTACK_UW_KEY_HASH_BITS);	/* shared tables */
	u64 uw_gen;				/* of the last set published */
	u64 uw_bytes;
	u32 uw_maps;
};

/* A new session for @c, its file holding it (the caller's right checked). */
int vmstack_session_start(const struct vmstack_caller *c,
			  const struct vmstack_session_cfg *cfg,
			  struct netlink_ext_ack *extack,
			  struct vmstack_session **sp, struct file **filep);
/* The session of file descriptor @fd of the caller, with its file held. */
struct vmstack_session *vmstack_session_get(u32 fd, struct file **filep,
					    struct netlink_ext_ack *extack);
/* The sessions started from network namespace @net_cookie. */
u32 vmstack_nr_sessions(u64 net_cookie);
void vmstack_session_exit(void);

#endif /* _VMSTACK_SESSION_H */
