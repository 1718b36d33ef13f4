// SPDX-License-Identifier: GPL-2.0
/*
 * VM frames from a registered descriptor, spliced into the native stack:
 * the merge rule. Runs in the sample handler: nofault reads only, every
 * loop bounded by the descriptor's max_frames, every frame checked to lie
 * in the VM's stack and to move down it. Bad VM data cuts the VM part with
 * a visible marker and a counter; the native walk goes on regardless.
 */
#include <linux/netlink.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "vmstack.h"

enum vmstack_vm_broken {
	VMSTACK_VMB_STATE = 1,	/* no sane VM state at the activation record */
	VMSTACK_VMB_FRAME,	/* a frame outside the VM stack or not moving down */
	VMSTACK_VMB_READ,	/* VM memory unreadable */
	VMSTACK_VMB_DEPTH,	/* more frames than max_frames */
};

int vmstack_vm_add(struct vmstack_session *s, const void *desc, size_t len,
		   struct netlink_ext_ack *extack)
{
	const struct vmstack_vm_desc *d = desc;

	if (len != sizeof(*d) || d->size != sizeof(*d) ||
	    d->version != VMSTACK_VM_DESC_VERSION) {
		NL_SET_ERR_MSG(extack, "VM descriptor of another version or size");
		return -EINVAL;
	}
	if (d->code_start >= d->code_end || d->code_end > TASK_SIZE_MAX) {
		NL_SET_ERR_MSG(extack, "VM code range empty or not in user space");
		return -EINVAL;
	}
	if (d->flags & ~VMSTACK_VM_F_ALL) {
		NL_SET_ERR_MSG(extack, "VM descriptor: unknown flags");
		return -EINVAL;
	}
	if (d->state_from >= __VMSTACK_VM_STATE_MAX || d->link >= __VMSTACK_VM_LINK_MAX ||
	    d->top_reg >= __VMSTACK_VM_REG_MAX || d->pc_reg >= __VMSTACK_VM_REG_MAX ||
	    !d->max_frames || d->max_frames > VMSTACK_VM_MAX_FRAMES) {
		NL_SET_ERR_MSG(extack, "VM descriptor field out of range");
		return -EINVAL;
	}
	/* Without a state, only rbp is known in every native frame. */
	if (d->state_from == VMSTACK_VM_STATE_NONE && d->top_reg != VMSTACK_VM_REG_RBP) {
		NL_SET_ERR_MSG(extack, "VM without a state: its top frame must be in rbp");
		return -EINVAL;
	}
	if (d->state_from == VMSTACK_VM_STATE_GLOBAL &&
	    (!d->state_addr || d->state_addr > TASK_SIZE_MAX - 8)) {
		NL_SET_ERR_MSG(extack, "VM state address not in user space");
		return -EINVAL;
	}
	/* A link type (link & type_mask) indexes the 32-bit type masks. */
	if (d->link == VMSTACK_VM_LINK_TAGGED_DELTA &&
	    (d->state_from == VMSTACK_VM_STATE_NONE ||
	     !d->slot || d->slot > 64 || d->insn_bits > 16 || d->insn_shift > 31 ||
	     !d->stack_max || d->stack_max > (1U << 30) || d->type_mask > 31)) {
		NL_SET_ERR_MSG(extack, "VM descriptor: tagged-delta link fields out of range");
		return -EINVAL;
	}
	/* Compiled code has no unwind rules: the AR must lead on. */
	if ((d->flags & VMSTACK_VM_F_JIT) &&
	    ((d->flags & VMSTACK_VM_F_NATIVE_STEP) || d->jit_reg == VMSTACK_VM_REG_NONE ||
	     d->jit_reg >= __VMSTACK_VM_REG_MAX || d->ar_mask >= 4096)) {
		NL_SET_ERR_MSG(extack, "VM descriptor: JIT fields out of range");
		return -EINVAL;
	}
	/* Both drop an activation and go on from the registers it saved. */
	if ((d->flags & (VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN)) &&
	    (d->state_from != VMSTACK_VM_STATE_AR || (d->flags & VMSTACK_VM_F_NATIVE_STEP))) {
		NL_SET_ERR_MSG(extack, "VM descriptor: empty or unlinked activations need an AR and its saved registers");
		return -EINVAL;
	}
	if ((d->flags & VMSTACK_VM_F_AR_CHAIN) &&
	    (!d->ar_chain_max || d->ar_chain_max > VMSTACK_VM_AR_CHAIN_MAX ||
	     d->ar_mask >= 4096)) {
		NL_SET_ERR_MSG(extack, "VM descriptor: activation chain fields out of range");
		return -EINVAL;
	}
	if ((d->flags & VMSTACK_VM_F_CONT_BOTTOM) &&
	    (d->link != VMSTACK_VM_LINK_TAGGED_DELTA || d->cont_type > d->type_mask)) {
		NL_SET_ERR_MSG(extack, "VM descriptor: continuation bottom needs a tagged link type");
		return -EINVAL;
	}
	if (s->nr_vms == VMSTACK_VM_MAX) {
		NL_SET_ERR_MSG(extack, "too many VM descriptors in this session");
		return -ENOSPC;
	}
	s->vms[s->nr_vms] = *d;
	/* The handler reads nr_vms first: the descriptor must be in place. */
	smp_store_release(&s->nr_vms, s->nr_vms + 1);
	return 0;
}

static unsigned long vmstack_vm_reg(struct pt_regs *regs, u8 reg)
{
	switch (reg) {
	case VMSTACK_VM_REG_RAX: return regs->ax;
	case VMSTACK_VM_REG_RBX: return regs->bx;
	case VMSTACK_VM_REG_RCX: return regs->cx;
	case VMSTACK_VM_REG_RDX: return regs->dx;
	case VMSTACK_VM_REG_RSI: return regs->si;
	case VMSTACK_VM_REG_RDI: return regs->di;
	case VMSTACK_VM_REG_R12: return regs->r12;
	case VMSTACK_VM_REG_R13: return regs->r13;
	case VMSTACK_VM_REG_R14: return regs->r14;
	case VMSTACK_VM_REG_R15: return regs->r15;
	case VMSTACK_VM_REG_RBP: return regs->bp;
	}
	return 0;
}

static bool vmstack_vm_read(void *dst, unsigned long addr, size_t len)
{
	return !copy_from_user_nofault(dst, (const void __user *)addr, len);
}

static const struct vmstack_vm_desc *vmstack_vm_find(struct vmstack_session *s,
						     unsigned long pc)
{
	/* Pairs with vmstack_vm_add(): descriptors below nr are complete. */
	u32 i, nr = smp_load_acquire(&s->nr_vms);

	for (i = 0; i < nr; i++)
		if (pc >= s->vms[i].code_start && pc < s->vms[i].code_end)
			return &s->vms[i];
	return NULL;
}

struct vmstack_vm_out {
	u64 *ips;
	unsigned int *n;
	unsigned int max;
	u16 *flags;
};

static bool vmstack_vm_emit(struct vmstack_vm_out *o, u64 word)
{
	if (*o->n == o->max) {
		*o->flags |= VMSTACK_SF_USER_TRUNC;
		return false;
	}
	o->ips[(*o->n)++] = word;
	return true;
}

/*
 * Show the frame at @frame, of a function that is not native by its
 * frame's flags. Returns 0, a VMSTACK_VMB_* reason, or -1 when ips[] is
 * full (the walk ends there, not broken).
 */
static int vmstack_vm_show(const struct vmstack_vm_desc *d, unsigned long state,
			   unsigned long frame, unsigned long pc,
			   struct vmstack_vm_out *o)
{
	unsigned long fn, kind_at, ident;
	u8 kind, check;

	if (!vmstack_vm_read(&fn, frame + d->func_off, sizeof(fn)))
		return VMSTACK_VMB_READ;
	if (d->flags & VMSTACK_VM_F_FUNC_SLOT) {
		kind_at = fn + d->kind_off;
		if (!vmstack_vm_read(&fn, fn, sizeof(fn)))
			return VMSTACK_VMB_READ;
		fn &= d->func_mask;
	} else {
		fn &= d->func_mask;
		kind_at = fn + d->kind_off;
	}
	if (state && fn == state)
		return 0;
	if (!vmstack_vm_read(&kind, kind_at, 1))
		return VMSTACK_VMB_READ;
	if (kind == d->kind_native)
		return 0;
	if (kind != d->kind_script) {
		if (d->flags & VMSTACK_VM_F_NO_BUILTINS)
			return VMSTACK_VMB_FRAME;
		return vmstack_vm_emit(o, VMSTACK_VMF_BUILTIN |
				       (fn & ~VMSTACK_VMF_MASK)) ? 0 : -1;
	}
	if (!vmstack_vm_read(&ident, fn + d->ident_off, sizeof(ident)))
		return VMSTACK_VMB_READ;
	ident += d->ident_adj;
	if ((d->flags & VMSTACK_VM_F_IDENT_CHECK) &&
	    (!vmstack_vm_read(&check, ident + d->ident_check_off, 1) ||
	     check != d->ident_check_val))
		return VMSTACK_VMB_FRAME;
	if (!pc && (d->flags & VMSTACK_VM_F_FRAME_PC) &&
	    !vmstack_vm_read(&pc, frame + d->frame_pc_off, sizeof(pc)))
		pc = 0;
	return vmstack_vm_emit(o, VMSTACK_VMF_SCRIPT | (ident & ~VMSTACK_VMF_MASK)) &&
	       vmstack_vm_emit(o, pc) ? 0 : -1;
}

/* Does a frame of link type @type at @frame end its activation? */
static bool vmstack_vm_bottom(const struct vmstack_vm_desc *d, unsigned long frame,
			      u32 type)
{
	u64 v;

	if (d->bottom_types & (1U << type))
		return true;
	return (d->flags & VMSTACK_VM_F_CONT_BOTTOM) && type == d->cont_type &&
	       vmstack_vm_read(&v, frame + d->cont_off, sizeof(v)) && v == d->cont_val;
}

/*
 * Walk one activation's VM frames from @frame down to its bottom.
 * Returns 0 at the bottom, else a VMSTACK_VMB_* reason. At the bottom,
 * cur->next_top is where the next (outer) activation's frames start: the
 * state's own top pointer only knows the innermost activation.
 */
static int vmstack_vm_walk(const struct vmstack_vm_desc *d, unsigned long state,
			   unsigned long frame, unsigned long pc,
			   struct vmstack_vm_out *o, struct vmstack_vm_cursor *cur)
{
	bool delta = d->link == VMSTACK_VM_LINK_TAGGED_DELTA;
	unsigned long lo = 0, link, next;
	u32 insn, field, i, type = 0;
	bool shown;
	u16 fl = 0;
	int err;

	if (delta && !vmstack_vm_read(&lo, state + d->stack_off, sizeof(lo)))
		return VMSTACK_VMB_READ;
	for (i = 0; i < d->max_frames; i++) {
		if ((frame & 7) ||
		    (delta && (frame < lo || frame - lo >= d->stack_max)))
			return VMSTACK_VMB_FRAME;
		if (!vmstack_vm_read(&link, frame + d->link_off, sizeof(link)))
			return VMSTACK_VMB_READ;
		if (delta) {
			type = link & d->type_mask;
			shown = !(d->hide_types & (1U << type));
		} else {
			if (!vmstack_vm_read(&fl, frame + d->flags_off, sizeof(fl)))
				return VMSTACK_VMB_READ;
			shown = !(fl & d->native_flags);
		}
		if (shown) {
			err = vmstack_vm_show(d, state, frame, pc, o);
			if (err)
				return err < 0 ? 0 : err;
		}
		if (!delta) {
			if (!link || (fl & d->bottom_flags)) {
				cur->state = state;
				cur->next_top = link;
				return 0;
			}
			next = link;
			pc = 0;
		} else if ((link & d->pc_mask) == d->pc_val) {
			/* Called from the VM: link is the caller's return PC. */
			if (!vmstack_vm_read(&insn, link + d->insn_off, sizeof(insn)))
				return VMSTACK_VMB_READ;
			field = (insn >> d->insn_shift) &
				((1U << d->insn_bits) - 1);
			next = frame - (unsigned long)d->slot * (d->extra + field);
			pc = link;
		} else {
			next = frame - (link & ~(unsigned long)d->type_mask);
			pc = 0;
			if (vmstack_vm_bottom(d, frame, type)) {
				cur->state = state;
				cur->next_top = next < frame ? next : 0;
				return 0;
			}
		}
		if (delta && next >= frame)
			return VMSTACK_VMB_FRAME;
		frame = next;
	}
	return VMSTACK_VMB_DEPTH;
}

/* An activation without VM frames of its own (F_AR_EMPTY)? */
static bool vmstack_vm_empty(const struct vmstack_vm_desc *d, unsigned long ar)
{
	s32 v;

	return (d->flags & VMSTACK_VM_F_AR_EMPTY) &&
	       vmstack_vm_read(&v, ar + d->ar_empty_off, sizeof(v)) && v < 0;
}

/*
 * F_AR_CHAIN: false only when the state's chain of activations ends
 * without reaching @ar: the VM has not linked it yet, or has unlinked it.
 */
static bool vmstack_vm_linked(const struct vmstack_vm_desc *d,
			      unsigned long state, unsigned long ar)
{
	unsigned long link;
	u32 i;

	if (!(d->flags & VMSTACK_VM_F_AR_CHAIN) ||
	    !vmstack_vm_read(&link, state + d->state_ar_off, sizeof(link)))
		return true;
	for (i = 0; i < d->ar_chain_max; i++) {
		link &= ~(unsigned long)d->ar_mask;
		if (link == ar)
			return true;
		if (!link)
			return false;
		if (!vmstack_vm_read(&link, link + d->ar_prev_off, sizeof(link)))
			return true;
	}
	return true;
}

/* A state that passes the descriptor's check. */
static bool vmstack_vm_sane(const struct vmstack_vm_desc *d, unsigned long state)
{
	u8 check;

	return vmstack_vm_read(&check, state + d->check_off, 1) &&
	       check == d->check_val;
}

/* The VM state at activation record @ar, if it looks like one. */
static bool vmstack_vm_state(const struct vmstack_vm_desc *d, unsigned long ar,
			     unsigned long *state)
{
	return vmstack_vm_read(state, ar + d->state_off, sizeof(*state)) &&
	       vmstack_vm_sane(d, *state);
}

/* On to the VM's native caller, by the registers its entry saved at @ar. */
static bool vmstack_vm_caller(const struct vmstack_vm_desc *d,
			      struct vmstack_user_regs *r, unsigned long ar)
{
	unsigned long bp, ra;

	if (!vmstack_vm_read(&bp, ar + d->caller_bp_off, sizeof(bp)) ||
	    !vmstack_vm_read(&ra, ar + d->caller_ra_off, sizeof(ra)) ||
	    ar + d->caller_sp_off <= r->sp)
		return false;
	r->bp = bp;
	r->ip = ra;
	r->sp = ar + d->caller_sp_off;
	return true;
}

/*
 * The VM whose compiled code holds @ip, found through the sampled
 * registers (F_JIT); *anchor and the code object *obj as found.
 */
static const struct vmstack_vm_desc *
vmstack_vm_jit_find(struct vmstack_session *s, unsigned long ip,
		    struct pt_regs *regs, unsigned long *anchor, unsigned long *obj)
{
	/* Pairs with vmstack_vm_add(): descriptors below nr are complete. */
	u32 i, nr = smp_load_acquire(&s->nr_vms), count, size;
	unsigned long a, table, code;
	s32 id;

	for (i = 0; i < nr; i++) {
		const struct vmstack_vm_desc *d = &s->vms[i];

		if (!(d->flags & VMSTACK_VM_F_JIT))
			continue;
		a = vmstack_vm_reg(regs, d->jit_reg) + d->jit_anchor_adj;
		if (!vmstack_vm_read(&id, a + d->jit_id_off, sizeof(id)) || id < 0 ||
		    !vmstack_vm_read(&count, a + d->jit_count_off, sizeof(count)) ||
		    (u32)id >= count ||
		    !vmstack_vm_read(&table, a + d->jit_table_off, sizeof(table)) ||
		    !vmstack_vm_read(obj, table + 8UL * id, sizeof(*obj)))
			continue;
		*obj &= d->func_mask;
		if (vmstack_vm_read(&code, *obj + d->jit_code_off, sizeof(code)) &&
		    vmstack_vm_read(&size, *obj + d->jit_size_off, sizeof(size)) &&
		    ip - code < size) {
			*anchor = a;
			return d;
		}
	}
	return NULL;
}

/*
 * A sample in compiled code: the code object's frame, the VM frames from
 * the top the VM keeps for compiled code, then the activation's caller.
 * Compiled code keeps no frame chain: if the state fails, the stack ends.
 */
static bool vmstack_vm_splice_jit(const struct vmstack_vm_desc *d,
				  struct vmstack_user_regs *r, unsigned long anchor,
				  unsigned long obj, struct vmstack_vm_cursor *cur,
				  struct vmstack_vm_out *o)
{
	unsigned long state = 0, top, ar = 0;
	int broken = 0;

	/* The object stands in for the native frame: the slot is free. */
	(*o->n)--;
	vmstack_vm_emit(o, VMSTACK_VMF_JIT | (obj & ~VMSTACK_VMF_MASK));
	*o->flags |= VMSTACK_SF_VM;
	cur->next_top = 0;
	if (!vmstack_vm_read(&state, anchor + d->jit_state_off, sizeof(state)) ||
	    !vmstack_vm_sane(d, state))
		broken = VMSTACK_VMB_STATE;
	else if (!vmstack_vm_read(&top, anchor + d->jit_top_off, sizeof(top)))
		broken = VMSTACK_VMB_READ;
	else
		broken = vmstack_vm_walk(d, state, top + d->top_adj, 0, o, cur);
	if (broken != VMSTACK_VMB_STATE &&
	    !vmstack_vm_read(&ar, state + d->state_ar_off, sizeof(ar)) && !broken)
		broken = VMSTACK_VMB_READ;
	if (broken) {
		vmstack_vm_emit(o, VMSTACK_VMF_BROKEN | broken);
		*o->flags |= VMSTACK_SF_VM_BROKEN;
	}
	if (!ar || !vmstack_vm_caller(d, r, ar & ~d->ar_mask))
		r->ip = 0;
	return true;
}

bool vmstack_vm_splice(struct vmstack_session *s, struct vmstack_user_regs *r,
		       struct pt_regs *regs, bool at_leaf, bool no_rules,
		       struct vmstack_vm_cursor *cur, u64 *ips, unsigned int *n,
		       unsigned int max, u16 *flags)
{
	const struct vmstack_vm_desc *d = vmstack_vm_find(s, r->ip);
	struct vmstack_vm_out o = { ips, n, max, flags };
	unsigned long ar, state = 0, top, pc = 0, anchor, obj = 0;
	struct pt_regs *leaf = at_leaf ? regs : NULL;
	unsigned int n0;
	int broken = 0;

	/*
	 * Code the JIT compiled calls helpers and C functions, which keep a
	 * callee-saved anchor register as it was unless they use it: the
	 * sampled value then still serves the compiled caller. The lookup
	 * proves it (the code object must hold r->ip); if it fails, the
	 * stack ends there as it would have anyway.
	 */
	if (!d && no_rules)
		d = vmstack_vm_jit_find(s, r->ip, regs, &anchor, &obj);
	if (!d)
		return false;
	if (obj)
		return vmstack_vm_splice_jit(d, r, anchor, obj, cur, &o);
	ar = r->sp + d->ar_off;
	if (d->state_from == VMSTACK_VM_STATE_AR) {
		/* A helper leaves the VM's registers (top frame, PC) alone. */
		if (!vmstack_vm_state(d, ar, &state) && leaf && d->ar_leaf_off)
			ar = r->sp + d->ar_leaf_off;
		if (!vmstack_vm_state(d, ar, &state))
			broken = VMSTACK_VMB_STATE;
		else if (vmstack_vm_empty(d, ar) || !vmstack_vm_linked(d, state, ar))
			goto caller;
	} else if (d->state_from == VMSTACK_VM_STATE_GLOBAL) {
		if (!vmstack_vm_read(&state, d->state_addr, sizeof(state)) ||
		    !vmstack_vm_sane(d, state))
			broken = VMSTACK_VMB_STATE;
	}
	/* The VM's frames stand in for its native frame. */
	(*n)--;
	n0 = *n;
	if (!broken && (d->top_reg == VMSTACK_VM_REG_RBP || (leaf && d->top_reg))) {
		top = d->top_reg == VMSTACK_VM_REG_RBP ? r->bp :
		      vmstack_vm_reg(leaf, d->top_reg);
		top += d->top_adj;
		if (leaf && d->pc_reg)
			pc = vmstack_vm_reg(leaf, d->pc_reg);
		cur->next_top = 0;
		/*
		 * The register holds the top frame most of the time, not
		 * always (it is also scratch): if its walk fails, start over
		 * from the state's own, possibly older, top.
		 */
		broken = vmstack_vm_walk(d, state, top, pc, &o, cur);
		if (!broken)
			goto native_caller;
		if (d->state_from != VMSTACK_VM_STATE_NONE) {
			broken = 0;
			*n = n0;
			pc = 0;
		}
	}
	if (!broken && cur->next_top && cur->state == state) {
		/* An outer activation of the state walked last. */
		top = cur->next_top;
	} else if (!broken) {
		if (vmstack_vm_read(&top, state + d->top_off, sizeof(top)))
			top += d->top_adj;
		else
			broken = VMSTACK_VMB_READ;
	}
	cur->next_top = 0;
	if (!broken)
		broken = vmstack_vm_walk(d, state, top, pc, &o, cur);
	if (broken) {
		vmstack_vm_emit(&o, VMSTACK_VMF_BROKEN | broken);
		*flags |= VMSTACK_SF_VM_BROKEN;
	}
	if (broken == VMSTACK_VMB_STATE)
		goto native;
native_caller:
	*flags |= VMSTACK_SF_VM;
	/* A VM in plain C: its own unwind rules lead to its caller. */
	if (d->flags & VMSTACK_VM_F_NATIVE_STEP)
		return false;
	if (vmstack_vm_caller(d, r, ar))
		return true;
	goto native;

caller:
	/* An activation without VM frames: its native frame goes too. */
	if (!vmstack_vm_caller(d, r, ar))
		return false;
	(*n)--;
	return true;

native:
	/* Keep the native frame; the native unwinder steps over it. */
	vmstack_vm_emit(&o, r->ip);
	return false;
}
