// SPDX-License-Identifier: GPL-2.0
/*
 * The user unwind rules of a session's processes: for each, one sorted
 * table of rows per mapping, uploaded by the recorder (derived from
 * .eh_frame) and looked up by the sample handler (uw_rows.c).
 *
 * Writers (netlink, under s->lock) build a new set of mappings and
 * publish it with RCU; the handler only reads. A table leaves the set when
 * a new table overlaps it or the process no longer maps its range (a
 * dlclose); it is freed after a grace period, when no handler can still
 * hold it, and its bytes count no more. Bytes and mappings are capped
 * per session, over all its processes.
 */
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "vmstack.h"

static size_t vmstack_uw_bytes(const struct vmstack_uw_table *t)
{
	return struct_size(t, rows, t->nrows);
}

/* Does @mm still map code over the start of @t's range? */
static bool vmstack_uw_mapped(struct mm_struct *mm, const struct vmstack_uw_table *t)
{
	struct vm_area_struct *vma = find_vma(mm, t->start);

	return vma && vma->vm_start <= t->start && (vma->vm_flags & VM_EXEC);
}

/*
 * Publish @t in @p's rules: a new set without the tables @t overlaps or
 * whose mappings are gone (@mm, if the process still has one), then free
 * those.
 */
static int vmstack_uw_publish(struct vmstack_session *s, struct vmstack_proc *p,
			      struct vmstack_uw_table *t, struct mm_struct *mm,
			      struct netlink_ext_ack *extack)
{
	struct vmstack_uw_set *old, *new;
	bool placed = false;
	u32 i, n = 0, nr;

	old = rcu_dereference_protected(p->uw_set, lockdep_is_held(&s->lock));
	nr = old ? old->nr : 0;
	if (mm)
		mmap_read_lock(mm);
	for (i = 0; i < nr; i++) {
		struct vmstack_uw_table *m = old->maps[i];

		m->dropped = (m->end > t->start && m->start < t->end) ||
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
		struct vmstack_uw_table *m = old->maps[i];

		if (m->dropped)
			continue;
		if (!placed && m->start > t->start) {
			new->maps[n++] = t;
			placed = true;
		}
		new->maps[n++] = m;
	}
	if (!placed)
		new->maps[n++] = t;
	new->nr = n;
	/* Session-wide: a CPU's cache never confuses two processes' sets. */
	new->gen = ++s->uw_gen;
	rcu_assign_pointer(p->uw_set, new);
	s->uw_maps = s->uw_maps - nr + n;
	/*
	 * Only now: a handler that still sees the old set may use its
	 * tables until a grace period has passed. kvfree_rcu(), not
	 * call_rcu(): no callback of ours may outlive rmmod.
	 */
	for (i = 0; i < nr; i++) {
		struct vmstack_uw_table *m = old->maps[i];

		if (m->dropped) {
			s->uw_bytes -= vmstack_uw_bytes(m);
			kvfree_rcu(m, rcu);
		}
	}
	if (old)
		kvfree_rcu(old, rcu);
	s->uw_bytes += vmstack_uw_bytes(t);
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

int vmstack_uw_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const struct vmstack_uw_chunk *c, struct netlink_ext_ack *extack)
{
	struct vmstack_uw_table *t = p->uw_pending;
	struct mm_struct *mm;
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
			NL_SET_ERR_MSG(extack,
				       "unwind tables over the session's memory limit (VMSTACK_UW_MAX_BYTES)");
			return -ENOSPC;
		}
		kvfree(t);
		t = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
		p->uw_pending = t;
		if (!t)
			return -ENOMEM;
		t->start = c->start;
		t->end = c->end;
		t->nrows = c->total;
		p->uw_pending_next = 0;
	}
	if (!t || c->first != p->uw_pending_next || c->start != t->start ||
	    c->end != t->end || c->total != t->nrows ||
	    c->nrows > t->nrows - c->first) {
		NL_SET_ERR_MSG(extack, "unwind table chunk out of order");
		return -EINVAL;
	}
	memcpy(&t->rows[c->first], c->rows, c->nrows * sizeof(*c->rows));
	p->uw_pending_next += c->nrows;
	if (p->uw_pending_next < t->nrows)
		return 0;

	p->uw_pending = NULL;
	why = vmstack_uw_rows_check(t);
	if (why) {
		vmstack_set_err(extack, why);
		kvfree(t);
		return -EINVAL;
	}
	mm = vmstack_proc_mm(p);
	err = vmstack_uw_publish(s, p, t, mm, extack);
	if (mm)
		mmput(mm);
	if (err)
		kvfree(t);
	return err;
}

void vmstack_uw_free(struct vmstack_session *s, struct vmstack_proc *p, bool now)
{
	struct vmstack_uw_set *set = rcu_dereference_protected(p->uw_set, true);
	u32 i;

	for (i = 0; set && i < set->nr; i++) {
		s->uw_bytes -= vmstack_uw_bytes(set->maps[i]);
		if (now)
			kvfree(set->maps[i]);
		else
			kvfree_rcu(set->maps[i], rcu);
	}
	if (set) {
		s->uw_maps -= set->nr;
		if (now)
			kvfree(set);
		else
			kvfree_rcu(set, rcu);
	}
	RCU_INIT_POINTER(p->uw_set, NULL);
	/* Never published: no handler saw it. */
	kvfree(p->uw_pending);
	p->uw_pending = NULL;
}
