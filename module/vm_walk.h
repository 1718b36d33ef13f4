/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM walk's fixed part (vm_walk.c: activations, the way back to
 * native code, compiled code) and the programs it runs (vm_prog.c) share:
 * reads of VM memory and the words stored.
 */
#ifndef _VMSTACK_VM_WALK_H
#define _VMSTACK_VM_WALK_H

#include "walk.h"

/*
 * A read of VM memory. One that faults costs an exception and its fixup,
 * tens of reads that succeed, and a descriptor decides how many a walk
 * tries; so past VMSTACK_MAX_VM_FAULTS failed reads in a sample (of any
 * walk: the native walk ends at its first) no VM read is tried.
 */
static inline bool vmstack_vm_read(struct vmstack_walk *w, void *dst, unsigned long addr,
				   size_t len)
{
	if (w->faults >= VMSTACK_MAX_VM_FAULTS)
		return false;
	return vmstack_walk_read(w, dst, addr, len);
}

/* Descriptor @d's VM word of @kind for @value. */
static inline u64 vmstack_vm_word(const struct vmstack_walk *w,
				  const struct vmstack_vm_desc4 *d, unsigned int kind,
				  u64 value)
{
	return vmstack_vmw(kind, (unsigned int)(d - w->vms), value);
}

static inline bool vmstack_vm_emit(struct vmstack_walk *w, u64 word)
{
	if (w->n == w->max) {
		w->flags |= VMSTACK_SF_USER_TRUNC;
		return false;
	}
	w->ips[w->n++] = word;
	return true;
}

#endif
