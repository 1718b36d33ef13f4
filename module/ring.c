// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU single-producer ring buffers shared with the reader.
 *
 * Only the sample handler of one CPU writes that CPU's ring, and it cannot
 * nest (see sample.c), so no lock is needed. The reader is untrusted: the
 * tail it writes is checked before every use, and our own copy of head is
 * the only one we trust.
 */
#include <linux/mm.h>
#include <linux/string.h>
#include "vmstack.h"

void vmstack_ring_init(struct vmstack_ring *r, void *ctl_page,
		       unsigned int pages, unsigned int cpu)
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
	r->head += size;
	/* The record (and any pad before it) is visible before head moves. */
	smp_store_release(&r->ctl->head, r->head);
}
