// SPDX-License-Identifier: GPL-2.0
/*
 * A session's target set: the processes it samples, each with its own
 * unwind rules and VM descriptors (VM_ADD). The process a session starts
 * on is the first; TARGET_ADD adds more (each with the same right to read
 * it as the first), TARGET_DEL forgets one that exited. A session over
 * every process or a cgroup's starts with none. The handler finds the
 * interrupted process in a hash table by its struct pid under RCU (one
 * bucket, at most VMSTACK_MAX_TARGETS entries in all); writers hold
 * s->lock, and a process leaves the table before its memory is freed
 * after a grace period.
 */
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/minmax.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/mm.h>
#include "access.h"
#include "account.h"
#include "compat.h"
#include "extack.h"
#include "target.h"
#include "thread_events.h"
#include "unwind_table.h"
#include "vm_prog_check.h"

/* @nr's entry (its number when added), or NULL. Caller holds s->lock. */
static struct vmstack_proc *vmstack_target_by_nr(struct vmstack_session *s, u32 nr)
{
	struct vmstack_proc *p;
	int bkt;

	hash_for_each(s->procs, bkt, p, node)
		if (p->nr == nr)
			return p;
	return NULL;
}

struct vmstack_proc *vmstack_target_get(struct vmstack_session *s, u32 nr,
					struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p = nr ? vmstack_target_by_nr(s, nr) : s->first;

	if (!p)
		NL_SET_ERR_MSG(extack, "PID is not one of the session's targets");
	return p;
}

/* Unlink @p; free it now (@now: no handler runs) or after a grace period. */
static void vmstack_target_free(struct vmstack_session *s, struct vmstack_proc *p,
				bool now)
{
	hash_del_rcu(&p->node);
	s->nr_procs--;
	if (s->first == p)
		s->first = NULL;
	vmstack_uw_free(s, p, now);
	put_pid(p->tgid);
	vmstack_consent_release(&p->consent);
	vmstack_account_uncharge(s->account, sizeof(*p));
	if (p->vms)
		vmstack_account_uncharge(s->account, sizeof(*p->vms));
	if (now) {
		kvfree(p->vms);
		kfree(p);
	} else {
		if (p->vms)
			kvfree_rcu(p->vms, rcu);
		kfree_rcu(p, rcu);
	}
}

int vmstack_target_add(struct vmstack_session *s, const struct vmstack_caller *c,
		       u32 nr, struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p, *old;
	struct pid *added = NULL;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->tgid = vmstack_find_target(c, nr, extack, &err, &p->consent);
	if (!p->tgid) {
		kfree(p);
		return err;
	}
	/*
	 * The number the tools know it by, as records give it. A holder in
	 * another PID namespace than the session's (the descriptor was
	 * passed) may name a process that has none there: 0, which is no
	 * process's number, and which every such process would share.
	 */
	p->nr = pid_nr_ns(p->tgid, s->pid_ns);
	if (!p->nr) {
		NL_SET_ERR_MSG(extack, "the process has no number in the session's PID namespace");
		put_pid(p->tgid);
		vmstack_consent_release(&p->consent);
		kfree(p);
		return -ESRCH;
	}
	mutex_lock(&s->lock);
	/*
	 * A number seen again is a new process: the old one exited. The
	 * same process again replaces its entry only once the handler
	 * stopped reading it (revoked): it is judged anew, as now.
	 */
	old = vmstack_target_by_nr(s, p->nr);
	if (old && old->tgid == p->tgid && !READ_ONCE(old->revoked)) {
		NL_SET_ERR_MSG(extack, "the process is already a target");
		err = -EEXIST;
	} else if (!old && s->nr_procs >= VMSTACK_MAX_TARGETS) {
		NL_SET_ERR_MSG(extack, "too many targets in this session (VMSTACK_MAX_TARGETS)");
		err = -ENOSPC;
	} else {
		err = vmstack_account_charge(s->account, sizeof(*p), extack);
	}
	if (!err) {
		if (old)
			vmstack_target_free(s, old, false);
		hash_add_rcu(s->procs, &p->node, (unsigned long)p->tgid);
		s->nr_procs++;
		if (!s->first)
			s->first = p;
		if (s->cfg.task_events)
			added = get_pid(p->tgid);
		p = NULL;
	}
	mutex_unlock(&s->lock);
	/*
	 * Its threads' events, if the targets' are made already (else they
	 * will be, with theirs): not under s->lock (thread_events.c says
	 * why). On failure it stays a target, with the threads given one.
	 */
	if (added) {
		err = vmstack_thread_events_attach(s, added, extack);
		put_pid(added);
	}
	if (p) {
		put_pid(p->tgid);
		vmstack_consent_release(&p->consent);
		kfree(p);
	}
	return err;
}

/*
 * The session's first target (none for ALL and CGROUP_FD), the cgroup,
 * and how a process outside the set is read (ALL, CGROUP_FD, CHILDREN).
 * CAP_PERFMON (checked before) is perf's right to sample every
 * process's stacks; reading one that is not dumpable (a setuid program)
 * takes the right to read any process, as a target's does.
 */
int vmstack_targets_init(struct vmstack_session *s, const struct vmstack_caller *c,
			 struct netlink_ext_ack *extack)
{
	struct cgroup *cgrp;
	int err;

	if (!s->cfg.all && !s->cfg.cgroup) {
		err = vmstack_target_add(s, c, s->cfg.pid, extack);
		if (err || !s->cfg.children)
			return err;
	}
	/* A child runs with its parent's credentials unless it runs setuid. */
	s->undescribed.consent.watch_dumpable = !vmstack_may_read_any(c);
	if (!s->cfg.cgroup)
		return 0;
	cgrp = vmstack_cgroup_get(s->cfg.cgroup_fd);
	if (PTR_ERR_OR_ZERO(cgrp) == -EOPNOTSUPP) {
		NL_SET_ERR_MSG(extack, "this kernel has no cgroups (CONFIG_CGROUPS)");
		return -EOPNOTSUPP;
	}
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG(extack, "CGROUP_FD is not a cgroup v2 directory");
		return PTR_ERR(cgrp);
	}
	s->cgrp = cgrp;
	return 0;
}

int vmstack_target_del(struct vmstack_session *s, u32 nr,
		       struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p;

	mutex_lock(&s->lock);
	p = vmstack_target_by_nr(s, nr);
	if (p)
		vmstack_target_free(s, p, false);
	mutex_unlock(&s->lock);
	if (!p) {
		NL_SET_ERR_MSG(extack, "PID is not one of the session's targets");
		return -ENOENT;
	}
	return 0;
}

/* @p's descriptor set, allocated and charged at its first VM_ADD. */
static int vmstack_vm_set_get(struct vmstack_session *s, struct vmstack_proc *p,
			      struct netlink_ext_ack *extack)
{
	struct vmstack_vm_set *set;
	int err;

	if (p->vms)
		return 0;
	err = vmstack_account_charge(s->account, sizeof(*set), extack);
	if (err)
		return err;
	set = kvzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set) {
		vmstack_account_uncharge(s->account, sizeof(*set));
		return -ENOMEM;
	}
	/* Read by the handler only once nr_vms, published after it, says so. */
	WRITE_ONCE(p->vms, set);
	return 0;
}

int vmstack_vm_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const void *desc, size_t len, struct netlink_ext_ack *extack)
{
	struct vmstack_vm_desc4 *d;
	const char *why;
	int err;

	lockdep_assert_held(&s->lock);
	BUILD_BUG_ON(VMSTACK_VM_MAX > 4);	/* two bits of a VM word */
	BUILD_BUG_ON(sizeof(*d) != VMSTACK_VM4_DESC_SIZE_4_1 ||
		     sizeof(*d) > VMSTACK_VM4_DESC_MAX_SIZE);
	/*
	 * The policy holds @len to VMSTACK_VM4_DESC_MIN_SIZE..MAX_SIZE. A
	 * longer descriptor (a newer tool) may only carry zeros we do not
	 * know; a shorter one (an older minor's) has zeros for what it does
	 * not know.
	 */
	if (len > sizeof(*d) && memchr_inv((const u8 *)desc + sizeof(*d), 0,
					   len - sizeof(*d))) {
		NL_SET_ERR_MSG(extack,
			       "VM descriptor uses fields this module does not know (a newer ABI minor)");
		return -EOPNOTSUPP;
	}
	/* Shorter: an older minor's whole struct, no part of a field. */
	if (len < sizeof(*d) && len != VMSTACK_VM4_DESC_SIZE_4_0) {
		NL_SET_ERR_MSG(extack, "VM descriptor: its length is no ABI 4 minor's struct");
		return -EINVAL;
	}
	if (p->nr_vms == VMSTACK_VM_MAX) {
		NL_SET_ERR_MSG(extack, "too many VM descriptors for this process");
		return -ENOSPC;
	}
	err = vmstack_vm_set_get(s, p, extack);
	if (err)
		return err;
	/*
	 * Checked where the handler will read it: the slot past nr_vms is
	 * not read until nr_vms is published, and a copy (the attribute is
	 * only 4-byte aligned) is what the check saw.
	 */
	d = &p->vms->d[p->nr_vms];
	memset(d, 0, sizeof(*d));
	memcpy(d, desc, min(len, sizeof(*d)));
	why = d->size != len ? "VM descriptor: its size field is not its length" :
			       vmstack_vm_desc4_check(d);
	if (why) {
		memset(d, 0, sizeof(*d));
		vmstack_set_err(extack, why);
		return -EINVAL;
	}
	/* The handler reads nr_vms first: the descriptor must be in place. */
	smp_store_release(&p->nr_vms, p->nr_vms + 1);
	return 0;
}

/* Sampling has stopped and a grace period has passed (session.c). */
void vmstack_targets_free(struct vmstack_session *s)
{
	struct vmstack_proc *p;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(s->procs, bkt, tmp, p, node)
		vmstack_target_free(s, p, true);
	if (s->cgrp)
		vmstack_cgroup_put(s->cgrp);
}
