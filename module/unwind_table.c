// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwind rules of a session: one sorted table of rows per mapping
 * of the target, uploaded by the recorder (derived from .eh_frame) and
 * looked up by the sample handler (uw_rows.c).
 *
 * Writers (netlink, under vmstack_sessions_lock) build a new set of
 * mappings and publish it with RCU; the handler only reads. Row tables are
 * never freed before the session ends, so a handler can never see one go.
 */
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "vmstack.h"

/* Publish @t, dropping the mappings it overlaps from the lookup set. */
static int vmstack_uw_publish(struct vmstack_session *s,
			      struct vmstack_uw_table *t)
{
	struct vmstack_uw_set *old, *new;
	bool placed = false;
	u32 i, n = 0, nr;

	old = rcu_dereference_protected(s->uw_set,
					lockdep_is_held(&vmstack_sessions_lock));
	nr = old ? old->nr : 0;
	new = kmalloc(struct_size(new, maps, nr + 1), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct vmstack_uw_table *m = old->maps[i];

		if (m->end > t->start && m->start < t->end)
			continue;	/* unmapped and replaced by @t */
		if (!placed && m->start > t->start) {
			new->maps[n++] = t;
			placed = true;
		}
		new->maps[n++] = m;
	}
	if (!placed)
		new->maps[n++] = t;
	new->nr = n;
	rcu_assign_pointer(s->uw_set, new);
	/* kfree_rcu(), not call_rcu(): no callback of ours may outlive rmmod. */
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

int vmstack_uw_add(struct vmstack_session *s, const struct vmstack_uw_chunk *c,
		   struct netlink_ext_ack *extack)
{
	struct vmstack_uw_table *t = s->uw_pending;
	const char *why;
	size_t bytes;
	int err;

	if (c->first == 0) {
		if (c->start >= c->end || c->end - c->start > U32_MAX ||
		    c->end > TASK_SIZE_MAX || !c->total ||
		    c->total > VMSTACK_UW_MAX_ROWS) {
			NL_SET_ERR_MSG(extack, "bad unwind table mapping or size");
			return -EINVAL;
		}
		bytes = struct_size(t, rows, c->total);
		if (s->uw_bytes + bytes > VMSTACK_UW_MAX_BYTES) {
			NL_SET_ERR_MSG(extack, "unwind tables over the session's memory limit");
			return -ENOSPC;
		}
		kvfree(t);
		t = kvmalloc(bytes, GFP_KERNEL);
		s->uw_pending = t;
		if (!t)
			return -ENOMEM;
		t->start = c->start;
		t->end = c->end;
		t->nrows = c->total;
		s->uw_pending_next = 0;
	}
	if (!t || c->first != s->uw_pending_next || c->start != t->start ||
	    c->end != t->end || c->total != t->nrows ||
	    c->nrows > t->nrows - c->first) {
		NL_SET_ERR_MSG(extack, "unwind table chunk out of order");
		return -EINVAL;
	}
	memcpy(&t->rows[c->first], c->rows, c->nrows * sizeof(*c->rows));
	s->uw_pending_next += c->nrows;
	if (s->uw_pending_next < t->nrows)
		return 0;

	s->uw_pending = NULL;
	why = vmstack_uw_rows_check(t);
	if (why) {
		vmstack_set_err(extack, why);
		kvfree(t);
		return -EINVAL;
	}
	err = vmstack_uw_publish(s, t);
	if (err) {
		kvfree(t);
		return err;
	}
	list_add(&t->node, &s->uw_tables);
	s->uw_bytes += struct_size(t, rows, t->nrows);
	return 0;
}

void vmstack_uw_free(struct vmstack_session *s)
{
	struct vmstack_uw_table *t, *tmp;

	/* Sampling has stopped and synchronize_rcu() has run (session.c). */
	kfree(rcu_dereference_protected(s->uw_set, true));
	kvfree(s->uw_pending);
	list_for_each_entry_safe(t, tmp, &s->uw_tables, node)
		kvfree(t);
}
