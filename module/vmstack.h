/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared between the files of vmstack.ko. */
#ifndef _VMSTACK_H
#define _VMSTACK_H

#include <linux/types.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <asm/local64.h>
#include <linux/vmstack.h>
#include "walk.h"

/* The project's version: Kbuild passes the file VERSION's, the tools' too. */
#ifndef VMSTACK_VERSION
#error "VMSTACK_VERSION is not defined: build the module through Kbuild"
#endif

struct perf_event;
struct pt_regs;
struct pid;
struct pid_namespace;
struct netlink_ext_ack;
struct file;
struct page;
struct user_struct;

/* One CPU's ring: kernel-private view of the shared control page. */
struct vmstack_ring {
	struct vmstack_ring_ctl *ctl;	/* shared with the reader */
	u8 *data;
	u64 size;			/* bytes, a power of 2 */
	u64 head;			/* ours; ctl->head only mirrors it */
};

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
	u64 offline_since;		/* hotplug (session.c): when it went down */
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
	 * The handler reads no user memory of the target while it is not
	 * dumpable: always for a caller that needed the target's consent
	 * (same user), else once it stops being dumpable (a setuid exec).
	 */
	bool watch_dumpable;
	/* User unwind rules (unwind_table.c). */
	struct vmstack_uw_set __rcu *uw_set;
	struct vmstack_uw_table *uw_pending;	/* being uploaded */
	u64 uw_pending_start;			/* where it goes */
	u32 uw_pending_next;
	/* VM descriptors: only added; nr_vms is published last. */
	struct vmstack_vm_desc vms[VMSTACK_VM_MAX];
	u32 nr_vms;
};

#define VMSTACK_PROC_HASH_BITS	8
#define VMSTACK_UW_KEY_HASH_BITS	8

/* One chunk of an unwind table, as VMSTACK_CMD_UNWIND_ADD carries it. */
struct vmstack_uw_chunk {
	u64 start, end;
	u64 key;		/* 0: not shared */
	u32 total, first, nrows;
	const struct vmstack_uw_row *rows;
};

struct vmstack_session {
	struct list_head node;		/* in vmstack_sessions */
	struct hlist_node cpuhp;	/* an instance of the hotplug state */
	u32 id;
	struct vmstack_session_cfg cfg;
	struct pid_namespace *pid_ns;	/* for the numbers in records */
	kuid_t owner;			/* for the per-user session limit */
	fl_owner_t owner_files;		/* the starter's file table (flush) */
	struct user_struct *user;	/* charged for the rings' locked memory */
	unsigned long locked_pages;
	struct vmstack_cpu __percpu *pcpu;
	/* The rings: pages charged to the caller, mapped by the reader. */
	struct page **pages;
	unsigned long nr_pages;
	void *area;
	size_t area_size;
	size_t ring_stride;		/* control page + data pages */
	unsigned int nr_rings;
	/*
	 * lock: the events (netlink and CPU hotplug change them), and every
	 * writer of the target set, its rules and descriptors.
	 */
	struct mutex lock;
	struct perf_event **events;	/* by CPU; NULL where none */
	struct perf_event *task_event;	/* TASK_EVENTS: the target's, inherited */
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

/*
 * An extended-ack message chosen at run time: NL_SET_ERR_MSG() takes only
 * a literal. @msg must outlive the request (a string constant).
 */
static inline void vmstack_set_err(struct netlink_ext_ack *extack,
				   const char *msg)
{
	do_trace_netlink_extack(msg);
	if (extack)
		extack->_msg = msg;
}

/* session.c */
int vmstack_session_init(void);
void vmstack_session_exit(void);
/* The caller's (current's) right to profile; @cfg->pid in its namespace. */
struct sk_buff;
int vmstack_session_start(struct sk_buff *skb,
			  const struct vmstack_session_cfg *cfg,
			  struct netlink_ext_ack *extack,
			  struct vmstack_session **sp, struct file **filep);
/* The session of file descriptor @fd of the caller, with its file held. */
struct vmstack_session *vmstack_session_get(u32 fd, struct file **filep,
					    struct netlink_ext_ack *extack);
void vmstack_session_stop(struct vmstack_session *s);
void vmstack_session_resume(struct vmstack_session *s);
u32 vmstack_nr_sessions(void);
int vmstack_vm_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const void *desc, size_t len, struct netlink_ext_ack *extack);
/* The caller's right to profile process @nr; its thread group, or NULL. */
struct pid *vmstack_find_target(struct sk_buff *skb, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				bool *watch_dumpable);

/* target.c (writers hold s->lock; the handler uses vmstack_proc_find) */
int vmstack_target_add(struct vmstack_session *s, struct sk_buff *skb, u32 nr,
		       struct netlink_ext_ack *extack);
int vmstack_target_del(struct vmstack_session *s, u32 nr,
		       struct netlink_ext_ack *extack);
/* The process numbered @nr (0: the first), or NULL and why in @extack. */
struct vmstack_proc *vmstack_target_get(struct vmstack_session *s, u32 nr,
					struct netlink_ext_ack *extack);
void vmstack_targets_free(struct vmstack_session *s);

/* The set's process @tgid, or NULL: in the handler, under RCU. */
static inline struct vmstack_proc *vmstack_proc_find(struct vmstack_session *s,
						     struct pid *tgid)
{
	struct vmstack_proc *p;

	hash_for_each_possible_rcu_notrace(s->procs, p, node, (unsigned long)tgid)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

/* sample.c */
struct perf_sample_data;
void vmstack_overflow(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs);

/* unwind_kernel.c: returns the number of frames stored */
unsigned int vmstack_unwind_kernel(struct pt_regs *regs, u64 *ips,
				   unsigned int max, u16 *flags);

/* unwind_table.c (callers hold s->lock) */
int vmstack_uw_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const struct vmstack_uw_chunk *c, struct netlink_ext_ack *extack);
/* Place the table uploaded under @key at @p's [@start, @end) (ENOENT: none). */
int vmstack_uw_place(struct vmstack_session *s, struct vmstack_proc *p,
		     u64 start, u64 end, u64 key, struct netlink_ext_ack *extack);
/* Free @p's rules now (@now: no handler can hold them) or after RCU. */
void vmstack_uw_free(struct vmstack_session *s, struct vmstack_proc *p, bool now);

/* ring.c */
void vmstack_ring_init(struct vmstack_ring *r, void *ctl_page,
		       unsigned int pages, unsigned int cpu);
void *vmstack_ring_reserve(struct vmstack_ring *r, u32 size, bool *bad_tail);
void vmstack_ring_commit(struct vmstack_ring *r, u32 size);

/* netlink.c */
int vmstack_netlink_init(void);
void vmstack_netlink_exit(void);

#endif /* _VMSTACK_H */
