/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM walk (vm_walk.c: activations, links, compiled code) and the
 * frame it shows (vm_frame.c: a function checked, then a VM word) share:
 * why a walk is cut, reads of VM references, the words stored.
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

/*
 * A VM reference at @addr: a native word, or with F_REF32 a u32
 * zero-extended (LuaJIT without GC64).
 */
static inline bool vmstack_vm_ref(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
				  unsigned long *v, unsigned long addr)
{
	u32 r;

	if (!(d->flags & VMSTACK_VM_F_REF32))
		return vmstack_vm_read(w, v, addr, sizeof(*v));
	if (!vmstack_vm_read(w, &r, addr, sizeof(r)))
		return false;
	*v = r;
	return true;
}

/* Descriptor @d's VM word of @kind for @value. */
static inline u64 vmstack_vm_word(const struct vmstack_walk *w,
				  const struct vmstack_vm_desc *d, unsigned int kind,
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

/* Where the PC handed to vmstack_vm_show() comes from. */
enum vmstack_vm_pc_from {
	VMSTACK_VM_PC_NONE,	/* unknown (0) */
	VMSTACK_VM_PC_REG,	/* pc_reg at the sampled frame: the top frame's */
	VMSTACK_VM_PC_LINK,	/* the return PC the frame above links to */
};

/*
 * Show the frame at @frame (whose link is @link), of a function that is
 * not native by its frame's flags. Returns 0, a VMSTACK_VMB_* reason, or
 * -1 when ips[] is full (the walk ends there, not broken). A frame whose
 * function cannot be verified (F_FUNC_CHECK, F_PC_CHECK) shows nothing
 * and sets *unv to why (enum vmstack_vmw_unverified): the walker decides.
 */
int vmstack_vm_show(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
		    unsigned long state, unsigned long frame, unsigned long link,
		    unsigned long pc, enum vmstack_vm_pc_from from, u8 *unv);

#endif
