// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwind rules of a session's processes: for each, its mappings
 * with a table of rows each, uploaded by the recorder (derived from
 * .eh_frame) and looked up by the sample handler (uw_rows.c).
 *
 * A table can be shared: uploaded with a key (the recorder's name for a
 * file mapped at one offset and length), it is placed again for another
 * process by that key alone (UNWIND_ADD with UW_KEY and no rows), so libc's
 * rows are in the session once however many processes map it. A table
 * counts its placements; bytes are counted once per table.
 *
 * Writers (netlink, under s->lock) build a new set of placements and
 * publish it with RCU; the handler only reads. A placement leaves the set
 * when a new one overlaps it or the process no longer maps its range (a
 * dlclose); a table whose last placement left is freed after a grace
 * period, when no handler can still hold it, and its bytes count no more.
 * Bytes and placements are capped per session, over all its processes,
 * and bytes per user too (account.h); a table's count from its first
 * chunk, when its memory is taken.
 */
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "account.h"
#include "extack.h"
#include "session.h"
#include "unwind_table.h"

static size_t vmstack_uw_bytes(const struct vmstack_uw_table *t)
{
	return struct_size(t, rows, t->nrows);
}

/* Does @mm still map code over the start of @m's range? */
static bool vmstack_uw_mapped(struct mm_struct *mm, const struct vmstack_uw_place *m)
{
	struct vm_area_struct *vma = find_vma(mm, m->start);

	return vma && vma->vm_start <= m->start && (vma->vm_flags & VM_EXEC);
}

/*
 * A table's bytes count from its first chunk, whole, against the
 * session's cap and its user's (account.h): a table being uploaded holds
 * its memory already.
 */
static int vmstack_uw_charge(struct vmstack_session *s, size_t bytes,
			     struct netlink_ext_ack *extack)
{
	int err;

	if (s->uw_bytes + bytes > VMSTACK_UW_MAX_BYTES) {
		NL_SET_ERR_MSG(extack,
			       "unwind tables over the session's memory limit (VMSTACK_UW_MAX_BYTES)");
		return -ENOSPC;
	}
	err = vmstack_account_charge(s->account, bytes, extack);
	if (!err)
		s->uw_bytes += bytes;
	return err;
}

/* Free @t and count its bytes no more (@now: no handler can hold it). */
static void vmstack_uw_release(struct vmstack_session *s, struct vmstack_uw_table *t,
			       bool now)
{
	size_t bytes = vmstack_uw_bytes(t);

	s->uw_bytes -= bytes;
	vmstack_account_uncharge(s->account, bytes);
	/*
	 * kvfree_rcu(), not call_rcu(): no callback of ours may outlive
	 * rmmod; a handler that still sees an old set may use the table
	 * until a grace period has passed.
	 */
	if (now)
		kvfree(t);
	else
		kvfree_rcu(t, rcu);
}

/* A placement of @t left: the table goes with its last (@now: no handler). */
static void vmstack_uw_unref(struct vmstack_session *s, struct vmstack_uw_table *t,
			     bool now)
{
	if (--t->refs)
		return;
	if (t->key)
		hash_del(&t->key_node);
	vmstack_uw_release(s, t, now);
}

/* @p's table being uploaded, if any, goes: it was never published. */
static void vmstack_uw_drop_pending(struct vmstack_session *s, struct vmstack_proc *p)
{
	if (p->uw_pending)
		vmstack_uw_release(s, p->uw_pending, true);
	p->uw_pending = NULL;
}

/*
 * Publish @t at [@start, @end) in @p's rules: a new set without the
 * placements it overlaps or whose mappings are gone (@mm, if the process
 * still has one), then let those go. Takes a reference on @t.
 */
static int vmstack_uw_publish(struct vmstack_session *s, struct vmstack_proc *p,
			      struct vmstack_uw_table *t, u64 start, u64 end,
			      struct mm_struct *mm, struct netlink_ext_ack *extack)
{
	struct vmstack_uw_set *old, *new;
	bool placed = false;
	u32 i, n = 0, nr;

	old = rcu_dereference_protected(p->uw_set, lockdep_is_held(&s->lock));
	nr = old ? old->nr : 0;
	if (mm)
		mmap_read_lock(mm);
	for (i = 0; i < nr; i++) {
		struct vmstack_uw_place *m = &old->maps[i];

		m->dropped = (m->end > start && m->start < end) ||
			     (mm && !vmstack_uw_mapped(mm, m));
		n += !m->dropped;
	}
	if (mm)
		mmap_read_unlock(mm);
	if (s->uw_maps - nr + n + 1 > VMSTACK_UW_MAX_MAPS) {
		NL_SET_ERR_MSG(extack, "unwind tables for too many mappings (VMSTACK_UW_MAX_MAPS)");
		return -ENOSPC;
	}
	new = kvmalloc(struct_size(new, maps, n + 1), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	for (i = 0, n = 0; i < nr; i++) {
		struct vmstack_uw_place *m = &old->maps[i];

		if (m->dropped)
			continue;
		if (!placed && m->start > start) {
			new->maps[n++] = (struct vmstack_uw_place){ start, end, t };
			placed = true;
		}
		new->maps[n] = *m;
		new->maps[n++].dropped = false;
	}
	if (!placed)
		new->maps[n++] = (struct vmstack_uw_place){ start, end, t };
	new->nr = n;
	t->refs++;
	/* Session-wide: a CPU's cache never confuses two processes' sets. */
	new->gen = ++s->uw_gen;
	rcu_assign_pointer(p->uw_set, new);
	s->uw_maps = s->uw_maps - nr + n;
	for (i = 0; i < nr; i++)
		if (old->maps[i].dropped)
			vmstack_uw_unref(s, old->maps[i].t, false);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/* The process's memory map, if it still has one (for the check above). */
static struct mm_struct *vmstack_proc_mm(struct vmstack_proc *p)
{
	struct task_struct *task = get_pid_task(p->tgid, PIDTYPE_TGID);
	struct mm_struct *mm = NULL;

	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	return mm;
}

/* Publish @t for @p; an unplaced new table is freed if that fails. */
static int vmstack_uw_place_table(struct vmstack_session *s, struct vmstack_proc *p,
				  struct vmstack_uw_table *t, u64 start, u64 end,
				  struct netlink_ext_ack *extack)
{
	struct mm_struct *mm = vmstack_proc_mm(p);
	int err;

	/* A table longer than its mapping would be read past it. */
	if (end - start != t->span) {
		NL_SET_ERR_MSG(extack, "unwind table placed over a mapping of another length");
		err = -EINVAL;
	} else {
		err = vmstack_uw_publish(s, p, t, start, end, mm, extack);
	}
	if (mm)
		mmput(mm);
	return err;
}

static struct vmstack_uw_table *vmstack_uw_by_key(struct vmstack_session *s, u64 key)
{
	struct vmstack_uw_table *t;

	hash_for_each_possible(s->uw_keys, t, key_node, key)
		if (t->key == key)
			return t;
	return NULL;
}

int vmstack_uw_place(struct vmstack_session *s, struct vmstack_proc *p,
		     u64 start, u64 end, u64 key, struct netlink_ext_ack *extack)
{
	struct vmstack_uw_table *t = vmstack_uw_by_key(s, key);

	if (!t) {
		NL_SET_ERR_MSG(extack, "no unwind table under this key: upload its rows");
		return -ENOENT;
	}
	if (start >= end || end > TASK_SIZE_MAX) {
		NL_SET_ERR_MSG(extack, "bad unwind table mapping");
		return -EINVAL;
	}
	return vmstack_uw_place_table(s, p, t, start, end, extack);
}

int vmstack_uw_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const struct vmstack_uw_chunk *c, struct netlink_ext_ack *extack)
{
	struct vmstack_uw_table *t = p->uw_pending, *old;
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
		/* A new first chunk replaces the table being uploaded. */
		vmstack_uw_drop_pending(s, p);
		bytes = struct_size(t, rows, c->total);
		err = vmstack_uw_charge(s, bytes, extack);
		if (err)
			return err;
		t = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
		if (!t) {
			s->uw_bytes -= bytes;
			vmstack_account_uncharge(s->account, bytes);
			return -ENOMEM;
		}
		memset(t, 0, sizeof(*t));
		p->uw_pending = t;
		t->key = c->key;
		t->span = c->end - c->start;
		t->nrows = c->total;
		p->uw_pending_start = c->start;
		p->uw_pending_next = 0;
	}
	if (!t || c->first != p->uw_pending_next || c->start != p->uw_pending_start ||
	    c->end - c->start != t->span || c->key != t->key || c->total != t->nrows ||
	    c->nrows > t->nrows - c->first) {
		NL_SET_ERR_MSG(extack, "unwind table chunk out of order");
		return -EINVAL;
	}
	memcpy(&t->rows[c->first], c->rows, c->nrows * sizeof(*c->rows));
	p->uw_pending_next += c->nrows;
	if (p->uw_pending_next < t->nrows)
		return 0;

	why = vmstack_uw_rows_check(t);
	if (why) {
		vmstack_set_err(extack, why);
		vmstack_uw_drop_pending(s, p);
		return -EINVAL;
	}
	/* Counted since its first chunk; unref'd (and freed) with its last placement. */
	p->uw_pending = NULL;
	t->refs = 1;
	err = vmstack_uw_place_table(s, p, t, c->start, c->end, extack);
	/*
	 * Placed, the newest rows answer for the key; older ones keep their
	 * places. Not placed, they are freed below and the key stays with
	 * the rows it named.
	 */
	if (!err && t->key) {
		old = vmstack_uw_by_key(s, t->key);
		if (old) {
			hash_del(&old->key_node);
			old->key = 0;
		}
		hash_add(s->uw_keys, &t->key_node, t->key);
	}
	vmstack_uw_unref(s, t, true);
	return err;
}

void vmstack_uw_free(struct vmstack_session *s, struct vmstack_proc *p, bool now)
{
	struct vmstack_uw_set *set = rcu_dereference_protected(p->uw_set, true);
	u32 i;

	for (i = 0; set && i < set->nr; i++)
		vmstack_uw_unref(s, set->maps[i].t, now);
	if (set) {
		s->uw_maps -= set->nr;
		if (now)
			kvfree(set);
		else
			kvfree_rcu(set, rcu);
	}
	RCU_INIT_POINTER(p->uw_set, NULL);
	vmstack_uw_drop_pending(s, p);
}
