// SPDX-License-Identifier: GPL-2.0
/*
 * A session's target set: the processes it samples, each with its own
 * unwind rules and VM descriptors. The process a session starts on is the
 * first; TARGET_ADD adds more (each with the same right to read it as
 * the first), TARGET_DEL forgets one that exited. The handler finds the
 * interrupted process in a hash table by its struct pid under RCU (one
 * bucket, at most VMSTACK_MAX_TARGETS entries in all); writers hold
 * s->lock, and a process leaves the table before its memory is freed
 * after a grace period.
 */
#include <linux/hashtable.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "vmstack.h"

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
	if (now)
		kfree(p);
	else
		kfree_rcu(p, rcu);
}

int vmstack_target_add(struct vmstack_session *s, struct sk_buff *skb, u32 nr,
		       struct netlink_ext_ack *extack)
{
	struct vmstack_proc *p, *old;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->tgid = vmstack_find_target(skb, nr, extack, &err, &p->watch_dumpable);
	if (!p->tgid) {
		kfree(p);
		return err;
	}
	/* The number the tools know it by, as records give it. */
	p->nr = pid_nr_ns(p->tgid, s->pid_ns);
	mutex_lock(&s->lock);
	/* A number seen again is a new process: the old one exited. */
	old = vmstack_target_by_nr(s, p->nr);
	if (old && old->tgid == p->tgid) {
		NL_SET_ERR_MSG(extack, "the process is already a target");
		err = -EEXIST;
	} else if (!old && s->nr_procs >= VMSTACK_MAX_TARGETS) {
		NL_SET_ERR_MSG(extack, "too many targets in this session (VMSTACK_MAX_TARGETS)");
		err = -ENOSPC;
	} else {
		if (old)
			vmstack_target_free(s, old, false);
		hash_add_rcu(s->procs, &p->node, (unsigned long)p->tgid);
		s->nr_procs++;
		if (!s->first)
			s->first = p;
		p = NULL;
		err = 0;
	}
	mutex_unlock(&s->lock);
	if (p) {
		put_pid(p->tgid);
		kfree(p);
	}
	return err;
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

/* Sampling has stopped and a grace period has passed (session.c). */
void vmstack_targets_free(struct vmstack_session *s)
{
	struct vmstack_proc *p;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(s->procs, bkt, tmp, p, node)
		vmstack_target_free(s, p, true);
}
