/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's target set (target.c): writers hold s->lock; the handler
 * finds a process with vmstack_proc_find() under RCU.
 */
#ifndef _VMSTACK_TARGET_H
#define _VMSTACK_TARGET_H

#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include "session.h"

/* The set SESSION_START asks for: its first process, or a scope (ALL, CGROUP_FD). */
int vmstack_targets_init(struct vmstack_session *s, const struct vmstack_caller *c,
			 struct netlink_ext_ack *extack);
int vmstack_target_add(struct vmstack_session *s, const struct vmstack_caller *c,
		       u32 nr, struct netlink_ext_ack *extack);
int vmstack_target_del(struct vmstack_session *s, u32 nr,
		       struct netlink_ext_ack *extack);
/* The process numbered @nr (0: the first), or NULL and why in @extack. */
struct vmstack_proc *vmstack_target_get(struct vmstack_session *s, u32 nr,
					struct netlink_ext_ack *extack);
/* VM_ADD: one more VM descriptor of @p. Caller holds s->lock. */
int vmstack_vm_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const void *desc, size_t len, struct netlink_ext_ack *extack);
/* Once sampling has stopped and a grace period has passed. */
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

#endif /* _VMSTACK_TARGET_H */
