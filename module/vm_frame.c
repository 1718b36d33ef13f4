// SPDX-License-Identifier: GPL-2.0
/*
 * One VM frame: its function checked (ABI 3.6: a function object, a
 * builtin the build has, a PC in its code) and shown as a VM word. A
 * slot holds its frame's function only while the frame is at rest: a
 * return stores results over it, a stale top names frames already left.
 * Runs in the sample handler (vm_walk.c calls it): nofault reads only, no
 * loop. Pure code (walk.h): the host unit tests run it on fake stacks.
 */
#include "vm_walk.h"

/*
 * F_FUNC_CHECK: the type byte of the object at @fn, and (when it is the
 * next byte, as in LuaJIT's GC header) the kind byte at @kind_at with it,
 * in one read. False if unreadable; *kind_read says whether *kind is set.
 */
static bool vmstack_vm_type(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			    unsigned long fn, unsigned long kind_at, u8 *type,
			    u8 *kind, bool *kind_read)
{
	u8 b[2];

	*kind_read = !(d->flags & VMSTACK_VM_F_KIND_WORD) &&
		     kind_at == fn + d->func_check_off + 1;
	if (!*kind_read)
		return vmstack_vm_read(w, type, fn + d->func_check_off, 1);
	if (!vmstack_vm_read(w, b, fn + d->func_check_off, sizeof(b)))
		return false;
	*type = b[0];
	*kind = b[1];
	return true;
}

/*
 * F_PC_CHECK: 0 if @pc lies in the code of the script function at @fn,
 * which starts at *(fn + ident_off) (set in *code) and is as many
 * pc_units long as the u32 at its identity + pc_size_off says. Else
 * VMSTACK_VMB_CHECK, or READ.
 */
static int vmstack_vm_pc_in(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			    unsigned long fn, unsigned long pc, unsigned long *code)
{
	u32 units;

	if (!vmstack_vm_ref(w, d, code, fn + d->ident_off) ||
	    !vmstack_vm_read(w, &units, *code + d->ident_adj + d->pc_size_off,
			       sizeof(units)))
		return VMSTACK_VMB_READ;
	return pc > *code && pc - *code <= (unsigned long)units * d->pc_unit ?
	       0 : VMSTACK_VMB_CHECK;
}

int vmstack_vm_show(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
		    unsigned long state, unsigned long frame, unsigned long link,
		    unsigned long pc, enum vmstack_vm_pc_from from, u8 *unv)
{
	bool pc_check = d->flags & VMSTACK_VM_F_PC_CHECK, script, kind_read = false;
	unsigned long fn, kind_at, ident;
	u64 kind_word;
	u8 kind, type;
	int err;

	*unv = 0;
	if (!vmstack_vm_ref(w, d, &fn, frame + d->func_off))
		return VMSTACK_VMB_READ;
	if (d->flags & VMSTACK_VM_F_FUNC_SLOT) {
		kind_at = fn + d->kind_off;
		if (!vmstack_vm_ref(w, d, &fn, fn))
			return VMSTACK_VMB_READ;
		fn &= d->func_mask;
	} else {
		fn &= d->func_mask;
		kind_at = fn + d->kind_off;
	}
	if (state && fn == state)
		return 0;
	/*
	 * The PC register is the frame's own return PC: the frame is being
	 * entered or left, and on the way out its results are stored over
	 * its function.
	 */
	if (pc_check && from == VMSTACK_VM_PC_REG && pc == link) {
		*unv = VMSTACK_VMU_EDGE;
		return 0;
	}
	if (d->flags & VMSTACK_VM_F_FUNC_CHECK) {
		if (!vmstack_vm_type(w, d, fn, kind_at, &type, &kind, &kind_read))
			return VMSTACK_VMB_READ;
		if (type != d->func_check_val) {
			*unv = VMSTACK_VMU_NOT_FUNC;
			return 0;
		}
	}
	if (d->flags & VMSTACK_VM_F_KIND_WORD) {
		if (!vmstack_vm_read(w, &kind_word, kind_at, sizeof(kind_word)))
			return VMSTACK_VMB_READ;
		script = kind_word == d->kind_word;
	} else {
		if (!kind_read && !vmstack_vm_read(w, &kind, kind_at, 1))
			return VMSTACK_VMB_READ;
		script = kind == d->kind_script;
		/* Called from script code at pc: a script's frame, not this. */
		if (!script && pc_check && from == VMSTACK_VM_PC_LINK)
			return VMSTACK_VMB_CHECK;
		if (kind == d->kind_native)
			return 0;
	}
	if (!script) {
		if (d->flags & VMSTACK_VM_F_NO_BUILTINS)
			return VMSTACK_VMB_FRAME;
		if ((d->flags & VMSTACK_VM_F_FUNC_CHECK) && d->kind_max && kind > d->kind_max) {
			*unv = VMSTACK_VMU_KIND;
			return 0;
		}
		return vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_BUILTIN,
							  d->flags & VMSTACK_VM_F_BUILTIN_KIND ?
							  kind : fn)) ? 0 : -1;
	}
	if (d->flags & VMSTACK_VM_F_FUNC_IDENT) {
		ident = fn;
	} else if (pc_check && from != VMSTACK_VM_PC_NONE) {
		err = vmstack_vm_pc_in(w, d, fn, pc, &ident);
		/*
		 * A return PC elsewhere: not this function's callee. The PC
		 * register elsewhere: the VM keeps other things there too
		 * (LuaJIT's vm_return a base, coroutine.resume a slot), so
		 * it is just not shown as the frame's PC.
		 */
		if (err == VMSTACK_VMB_CHECK && from == VMSTACK_VM_PC_REG)
			pc = 0;
		else if (err)
			return err;
	} else if (!vmstack_vm_ref(w, d, &ident, fn + d->ident_off)) {
		return VMSTACK_VMB_READ;
	}
	ident += d->ident_adj;
	if ((d->flags & VMSTACK_VM_F_IDENT_CHECK) &&
	    (!vmstack_vm_read(w, &type, ident + d->ident_check_off, 1) ||
	     type != d->ident_check_val))
		return VMSTACK_VMB_FRAME;
	if (!pc && (d->flags & VMSTACK_VM_F_FRAME_PC) &&
	    !vmstack_vm_read(w, &pc, frame + d->frame_pc_off, sizeof(pc)))
		pc = 0;
	return vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_SCRIPT, ident)) &&
	       vmstack_vm_emit(w, pc) ? 0 : -1;
}
