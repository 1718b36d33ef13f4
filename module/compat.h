/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels vmstack builds for (5.15 to 6.12), in
 * one place. Each shim names the version that changed the interface, read
 * in that version's include/net/genetlink.h or include/linux/mm.h; built
 * here against Debian's 6.1 (amd64, cloud, rt) and 6.12 headers. Which
 * side of a change the kernel is on, Kbuild finds in its headers
 * (VMSTACK_HAVE_*): stable and vendor kernels backport such changes, so a
 * version number would be wrong for some of them. What the
 * module uses otherwise is older than 5.15 and unchanged up to 6.12:
 * per-op genl policies (5.10), NLA_BINARY length ranges (5.10),
 * NLA_POLICY_FULL_RANGE (5.8; its range pointer became const in 6.7, so
 * ours is not const), copy_from_user_nmi (exported long before 5.15,
 * its nmi_uaccess_okay() check since 4.19), mmap_read_lock (5.8),
 * two-argument kvfree_rcu (5.9), multi-instance cpuhp states (4.10).
 */
#ifndef VMSTACK_COMPAT_H
#define VMSTACK_COMPAT_H

#include <linux/mm.h>
#include <net/genetlink.h>

/*
 * 6.3 made vma->vm_flags read-only behind vm_flags_set()/vm_flags_clear()
 * (so that the per-VMA lock sees every change); before, one assigned it.
 */
#ifndef VMSTACK_HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.6 put a whole struct genl_info in struct genl_dumpit_info ("genetlink:
 * provide struct genl_info to dumps", which also added genl_info_dump()):
 * a dump's parsed attributes moved from info->attrs to info->info.attrs.
 */
static inline struct nlattr **vmstack_dump_attrs(const struct genl_dumpit_info *info)
{
#ifdef VMSTACK_HAVE_GENL_INFO_DUMP
	return info->info.attrs;
#else
	return info->attrs;
#endif
}

/*
 * 6.1 added GENL_REQ_ATTR_CHECK (a missing attribute, named in the
 * extended ack) and genl_family.resv_start_op (commands from that number
 * on have their reserved header byte and unknown flags refused, and a
 * command without a policy takes no attributes). Before 6.1 the check is
 * written out and the header is not checked; attributes are refused by
 * every command's own policy on every version.
 */
#ifndef GENL_REQ_ATTR_CHECK
#define GENL_REQ_ATTR_CHECK(info, attr) ({				\
	bool __missing = !(info)->attrs[attr];				\
									\
	if (__missing)							\
		NL_SET_ERR_MSG((info)->extack, "required attribute missing"); \
	__missing;							\
})
#endif

/*
 * A kernel without CONFIG_CGROUPS (the suite's debug kernel) has no
 * cgroup to test: CGROUP_FD sessions are refused (EOPNOTSUPP) there.
 */
struct cgroup;
struct task_struct;
#ifdef CONFIG_CGROUPS
#include <linux/cgroup.h>

static inline struct cgroup *vmstack_cgroup_get(int fd)
{
	return cgroup_get_from_fd(fd);
}

static inline void vmstack_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}

/* In the handler: O(1), one ancestor slot compared (perf's test too). */
static inline bool vmstack_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp)
{
	return cgroup_is_descendant(task_dfl_cgroup(task), cgrp);
}
#else
static inline struct cgroup *vmstack_cgroup_get(int fd)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void vmstack_cgroup_put(struct cgroup *cgrp)
{
}

static inline bool vmstack_task_in_cgroup(struct task_struct *task, struct cgroup *cgrp)
{
	return false;
}
#endif

#ifdef VMSTACK_HAVE_RESV_START_OP
#define VMSTACK_GENL_RESV_START_OP .resv_start_op = 0,
#else
#define VMSTACK_GENL_RESV_START_OP
#endif

/*
 * 6.2 gave a task one perf context for every PMU ("perf: Rewrite core
 * context handling"): task->perf_event_ctxp, where before it had one per
 * kind (hardware, software), an array of perf_nr_task_contexts. Read
 * under RCU (thread_events.c): perf publishes them with
 * rcu_assign_pointer() and frees them after a grace period, but the field
 * is not marked __rcu, so READ_ONCE() (what rcu_dereference() does) keeps
 * sparse's address-space check quiet.
 */
#ifdef VMSTACK_HAVE_PERF_CTXP_ARRAY
#define VMSTACK_TASK_PERF_CTXS	perf_nr_task_contexts
#define vmstack_task_perf_ctx(t, i)	READ_ONCE((t)->perf_event_ctxp[i])
#else
#define VMSTACK_TASK_PERF_CTXS	1
#define vmstack_task_perf_ctx(t, i)	READ_ONCE((t)->perf_event_ctxp)
#endif

/*
 * Still runnable (preempted, yielding), not waiting, at a switch-out.
 * 6.12's delayed dequeue ("sched/fair: Implement delayed dequeue") leaves
 * a task that went to sleep on its runqueue (on_rq, se.sched_delayed)
 * until it is picked or woken; task_is_runnable() came with it.
 */
#ifdef VMSTACK_HAVE_TASK_IS_RUNNABLE
#define vmstack_task_runnable(t)	task_is_runnable(t)
#else
#define vmstack_task_runnable(t)	READ_ONCE((t)->on_rq)
#endif

#endif /* VMSTACK_COMPAT_H */
