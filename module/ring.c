// SPDX-License-Identifier: GPL-2.0
/*
 * The rings: per-CPU single-producer ring buffers shared with the reader,
 * in one area of pages charged to the caller and mapped by the reader.
 *
 * Only the sample handler of one CPU writes that CPU's ring, and it cannot
 * nest (see sample.c), so no lock is needed. The reader is untrusted: the
 * tail it writes is checked before every use, and our own copy of head is
 * the only one we trust.
 */
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "access.h"
#include "compat.h"
#include "ring.h"
#include "session.h"

/*
 * The session's wake-up: an interrupt after the handler's (its own IPI or
 * the next tick), or on PREEMPT_RT the irq_work thread, where the wait
 * queue's lock may be taken. One for every ring: a CPU that finds it
 * already queued needs none of its own, as poll() looks at every ring.
 */
static void vmstack_rings_wake(struct irq_work *work)
{
	struct vmstack_session *s = container_of(work, struct vmstack_session, ring_wake);

	wake_up_poll(&s->ring_wait, EPOLLIN | EPOLLRDNORM);
}

static void vmstack_ring_init(struct vmstack_ring *r, void *ctl_page,
			      unsigned int pages, unsigned int cpu,
			      struct irq_work *wake)
{
	r->ctl = ctl_page;
	r->data = (u8 *)ctl_page + PAGE_SIZE;
	r->size = (u64)pages * PAGE_SIZE;
	r->head = 0;
	r->ctl->head = 0;
	r->ctl->tail = 0;
	r->ctl->data_size = r->size;
	r->ctl->cpu = cpu;
	r->ctl->abi_major = VMSTACK_ABI_MAJOR;
	r->ctl->abi_minor = VMSTACK_ABI_MINOR;
	r->wake = wake;
	r->woke = false;
}

/* How big the rings are: a control page and the data pages per CPU. */
void vmstack_rings_size(struct vmstack_session *s)
{
	s->nr_rings = nr_cpu_ids;
	s->ring_stride = (size_t)(s->cfg.ring_pages + 1) * PAGE_SIZE;
	s->area_size = s->ring_stride * s->nr_rings;
	s->nr_pages = s->area_size >> PAGE_SHIFT;
}

/*
 * The rings count as the user's locked memory, as perf's buffers do:
 * within RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.
 */
int vmstack_rings_charge(struct vmstack_session *s, const struct vmstack_caller *c,
			 struct netlink_ext_ack *extack)
{
	unsigned long pages = s->nr_pages, limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long cur;

	s->user = get_current_user();
	cur = atomic_long_read(&s->user->locked_vm);
	do {
		if (!c->ipc_lock && cur + pages > limit) {
			NL_SET_ERR_MSG(extack,
				       "the rings exceed RLIMIT_MEMLOCK: raise it or use fewer ring pages");
			return -ENOMEM;
		}
	} while (!atomic_long_try_cmpxchg(&s->user->locked_vm, &cur, cur + pages));
	s->locked_pages = pages;
	return 0;
}

/* The rings' pages: charged to the caller's memory cgroup too. */
int vmstack_rings_alloc(struct vmstack_session *s)
{
	unsigned long i;
	unsigned int cpu;

	s->pages = kvcalloc(s->nr_pages, sizeof(*s->pages), GFP_KERNEL_ACCOUNT);
	if (!s->pages)
		return -ENOMEM;
	for (i = 0; i < s->nr_pages; i++) {
		s->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					 __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
		if (!s->pages[i])
			return -ENOMEM;
	}
	/* VM_USERMAP: remap_vmalloc_range() maps it for the reader. */
	s->area = vmap(s->pages, s->nr_pages, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (!s->area)
		return -ENOMEM;
	init_waitqueue_head(&s->ring_wait);
	init_irq_work(&s->ring_wake, vmstack_rings_wake);
	for_each_possible_cpu(cpu) {
		if (cpu >= s->nr_rings)
			break;
		vmstack_ring_init(&per_cpu_ptr(s->pcpu, cpu)->ring,
				  (u8 *)s->area + cpu * s->ring_stride,
				  s->cfg.ring_pages, cpu, &s->ring_wake);
	}
	s->rings_ready = true;
	return 0;
}

/* After the events stopped: no handler queues the wake-up any more. */
void vmstack_rings_free(struct vmstack_session *s)
{
	unsigned long i;

	if (s->rings_ready)
		irq_work_sync(&s->ring_wake);
	if (s->area)
		vunmap(s->area);
	for (i = 0; s->pages && i < s->nr_pages && s->pages[i]; i++)
		__free_page(s->pages[i]);
	kvfree(s->pages);
	if (s->user) {
		atomic_long_sub(s->locked_pages, &s->user->locked_vm);
		free_uid(s->user);
	}
}

int vmstack_rings_mmap(struct vmstack_session *s, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff != 0 || vma->vm_end - vma->vm_start != s->area_size)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	/*
	 * Not inherited by fork: a child would keep the session alive.
	 * madvise(MADV_DOFORK) clears VM_DONTCOPY, except on VM_IO mappings,
	 * which it refuses (EINVAL): VM_IO keeps it set. (Perf's ring has
	 * the same flags without VM_IO; there a child's copy is counted by
	 * its vm_ops and keeps the buffer, not the event.) VM_IO also keeps
	 * the rings from get_user_pages() and other processes' reads.
	 */
	vm_flags_clear(vma, VM_MAYEXEC);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY | VM_IO);
	return remap_vmalloc_range(vma, s->area, 0);
}

/* How full @r is; the reader's tail is only compared here, never trusted. */
static u64 vmstack_ring_fill(struct vmstack_ring *r, u64 head)
{
	return head - READ_ONCE(r->ctl->tail);
}

__poll_t vmstack_rings_poll(struct vmstack_session *s, struct file *file, poll_table *pt)
{
	struct vmstack_ring *r;
	__poll_t mask = 0;
	unsigned int cpu;

	poll_wait(file, &s->ring_wait, pt);
	/*
	 * The reader's tail (stored before it called us) before the heads
	 * below; pairs with the barrier in vmstack_ring_commit. Without both,
	 * each side could see the other's old value: the handler a tail that
	 * says it already woke us, we a head under the mark, and we sleep.
	 */
	smp_mb();
	/* Stopped for good (vmstack_rings_hangup): nothing more will come. */
	if (READ_ONCE(s->stopped))
		mask |= EPOLLHUP;
	for_each_possible_cpu(cpu) {
		if (cpu >= s->nr_rings)
			break;
		r = &per_cpu_ptr(s->pcpu, cpu)->ring;
		/* Pairs with the handler's release of head: the records are there. */
		if (vmstack_ring_fill(r, smp_load_acquire(&r->ctl->head)) >=
		    r->size >> VMSTACK_RING_WAKEUP_SHIFT)
			return mask | EPOLLIN | EPOLLRDNORM;
	}
	return mask;
}

void vmstack_rings_hangup(struct vmstack_session *s)
{
	if (s->rings_ready)
		wake_up_poll(&s->ring_wait, EPOLLHUP);
}

/*
 * Return room for a record of @size bytes (a multiple of 8, at most the
 * ring size), or NULL when the ring is full or the reader's tail is
 * impossible. A record never wraps: a pad record fills the end instead.
 */
void *vmstack_ring_reserve(struct vmstack_ring *r, u32 size, bool *bad_tail)
{
	/* Pairs with the reader's release store: it is done with the data. */
	u64 tail = smp_load_acquire(&r->ctl->tail);
	u64 head = r->head;
	u64 off = head & (r->size - 1);
	u64 contig = r->size - off;
	u64 need = size;
	struct vmstack_rec_hdr *pad;

	*bad_tail = false;
	r->from = head;
	if (tail > head || head - tail > r->size) {
		*bad_tail = true;
		return NULL;
	}
	if (contig < size)
		need += contig;
	if (r->size - (head - tail) < need)
		return NULL;
	if (contig < size) {
		pad = (struct vmstack_rec_hdr *)(r->data + off);
		pad->type = VMSTACK_REC_PAD;
		pad->flags = 0;
		pad->size = contig;
		r->head += contig;
		off = 0;
	}
	return r->data + off;
}

void vmstack_ring_commit(struct vmstack_ring *r, u32 size)
{
	u64 mark = r->size >> VMSTACK_RING_WAKEUP_SHIFT;
	u64 tail;

	r->head += size;
	/* The record (and any pad before it) is visible before head moves. */
	smp_store_release(&r->ctl->head, r->head);
	/*
	 * Wake the reader when the fill rises past the mark: once, until it
	 * is found below the mark before a record (the reader drained), even
	 * if that record (and its pad) takes it past the mark again at once.
	 * A bad tail (the reader's) at worst wakes it at every sample of this
	 * CPU, or never: its own loss. The head above before the tail: pairs
	 * with the barrier in vmstack_rings_poll (a release store orders
	 * nothing after it).
	 */
	smp_mb();
	tail = READ_ONCE(r->ctl->tail);
	if (r->from - tail < mark)
		r->woke = false;
	if (r->head - tail >= mark && !r->woke) {
		r->woke = true;
		irq_work_queue(r->wake);
	}
}
