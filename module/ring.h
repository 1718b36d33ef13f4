/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings (ring.c): one area of pages, charged to the caller and mapped
 * by the reader, cut into a ring per possible CPU that only that CPU's
 * handler writes.
 */
#ifndef _VMSTACK_RING_H
#define _VMSTACK_RING_H

#include <linux/poll.h>
#include <linux/types.h>
#include <linux/vmstack.h>

struct file;
struct irq_work;
struct netlink_ext_ack;
struct vm_area_struct;
struct vmstack_caller;
struct vmstack_session;

/* One CPU's ring: kernel-private view of the shared control page. */
struct vmstack_ring {
	struct vmstack_ring_ctl *ctl;	/* shared with the reader */
	u8 *data;
	u64 size;			/* bytes, a power of 2 */
	u64 head;			/* ours; ctl->head only mirrors it */
	u64 from;			/* head before the record being written */
	/*
	 * The reader sleeps in poll() until a ring is filled to its mark
	 * (VMSTACK_RING_WAKEUP_SHIFT): the handler, which may be in an NMI,
	 * cannot wake it itself, so it queues the session's @wake, once each
	 * time its ring's fill rises past the mark.
	 */
	struct irq_work *wake;
	bool woke;			/* queued since the fill last fell below */
};

/* The area, at session start and free (process context). */
void vmstack_rings_size(struct vmstack_session *s);
int vmstack_rings_charge(struct vmstack_session *s, const struct vmstack_caller *c,
			 struct netlink_ext_ack *extack);
/* The pages and each CPU's ring in s->pcpu, which must be there. */
int vmstack_rings_alloc(struct vmstack_session *s);
void vmstack_rings_free(struct vmstack_session *s);
int vmstack_rings_mmap(struct vmstack_session *s, struct vm_area_struct *vma);
/* Readable when a ring is filled to its mark; hung up once stopped. */
__poll_t vmstack_rings_poll(struct vmstack_session *s, struct file *file, poll_table *pt);
/* Stopped for good: wake the file's pollers (they find it hung up). */
void vmstack_rings_hangup(struct vmstack_session *s);

/* One CPU's ring, from its handler (no lock: it cannot nest). */
void *vmstack_ring_reserve(struct vmstack_ring *r, u32 size, bool *bad_tail);
void vmstack_ring_commit(struct vmstack_ring *r, u32 size);

#endif /* _VMSTACK_RING_H */
