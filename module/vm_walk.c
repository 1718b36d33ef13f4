// SPDX-License-Identifier: GPL-2.0
/*
 * VM frames from a registered descriptor, spliced into the native stack:
 * the merge rule. Runs in the sample handler: nofault reads only, every
 * loop bounded by the descriptor's max_frames, every frame checked to lie
 * in the VM's stack and to move down it. Bad VM data cuts the VM part with
 * a visible marker and a counter; the native walk goes on regardless.
 * Each frame is checked and shown by vm_frame.c. Pure code (walk.h): the
 * host unit tests run it on fake stacks.
 */
#include "vm_walk.h"

static const struct vmstack_vm_desc *vmstack_vm_find(struct vmstack_walk *w,
						     unsigned long pc)
{
	u32 i;

	for (i = 0; i < w->nr_vms; i++)
		if (pc >= w->vms[i].code_start && pc < w->vms[i].code_end)
			return &w->vms[i];
	return NULL;
}

/* The size of an entry of the compiled-code table. */
static unsigned long vmstack_vm_ref_size(const struct vmstack_vm_desc *d)
{
	return d->flags & VMSTACK_VM_F_REF32 ? 4 : 8;
}

/*
 * The VM part is cut here: a marker with the reason, and (unless the read
 * budget cut it: that is counted on its own) the VM_BROKEN flag.
 */
static void vmstack_vm_cut(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			   int reason)
{
	if (w->flags & VMSTACK_SF_BUDGET)
		reason = VMSTACK_VMB_BUDGET;
	else
		w->flags |= VMSTACK_SF_VM_BROKEN;
	if (reason != VMSTACK_VMB_BUDGET && w->faults >= VMSTACK_MAX_VM_FAULTS)
		reason = VMSTACK_VMB_FAULTS;
	vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_BROKEN, reason));
}

/* Does a frame of link type @type at @frame end its activation? */
static bool vmstack_vm_bottom(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			      unsigned long frame,
			      u32 type)
{
	unsigned long v;

	if (d->bottom_types & (1U << type))
		return true;
	return (d->flags & VMSTACK_VM_F_CONT_BOTTOM) && type == d->cont_type &&
	       vmstack_vm_ref(w, d, &v, frame + d->cont_off) && v == d->cont_val;
}

/*
 * Walk one activation's VM frames from @frame down to its bottom.
 * Returns 0 at the bottom, else a VMSTACK_VMB_* reason. At the bottom,
 * cur->next_top is where the next (outer) activation's frames start: the
 * state's own top pointer only knows the innermost activation.
 */
static int vmstack_vm_walk(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			   unsigned long state, unsigned long frame, unsigned long pc,
			   struct vmstack_vm_cursor *cur)
{
	enum vmstack_vm_pc_from from = pc ? VMSTACK_VM_PC_REG : VMSTACK_VM_PC_NONE;
	bool delta = d->link == VMSTACK_VM_LINK_TAGGED_DELTA;
	unsigned long lo = 0, link, next;
	u32 insn, field, i, type = 0;
	bool shown, top = true;
	u16 fl = 0;
	u8 unv;
	int err;

	if (delta && !vmstack_vm_ref(w, d, &lo, state + d->stack_off))
		return VMSTACK_VMB_READ;
	for (i = 0; i < d->max_frames; i++) {
		if ((frame & 7) ||
		    (delta && (frame < lo || frame - lo >= d->stack_max)))
			return VMSTACK_VMB_FRAME;
		if (!vmstack_vm_ref(w, d, &link, frame + d->link_off))
			return VMSTACK_VMB_READ;
		if (delta) {
			type = link & d->type_mask;
			shown = !(d->hide_types & (1U << type));
		} else {
			if (!vmstack_vm_read(w, &fl, frame + d->flags_off, sizeof(fl)))
				return VMSTACK_VMB_READ;
			shown = !(fl & d->native_flags);
		}
		if (shown) {
			err = vmstack_vm_show(w, d, state, frame, link, pc, from, &unv);
			if (err)
				return err < 0 ? 0 : err;
			/*
			 * Only the top frame may be caught changing (being set
			 * up or torn down): below it, frames are at rest.
			 */
			if (unv && !top)
				return VMSTACK_VMB_CHECK;
			top = false;
			if (unv) {
				w->flags |= VMSTACK_SF_VM_UNVERIFIED;
				if (!vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_UNVERIFIED,
									 unv)))
					return 0;
			}
		}
		if (!delta) {
			if (!link || (fl & d->bottom_flags)) {
				cur->state = state;
				cur->next_top = link;
				return 0;
			}
			next = link;
			pc = 0;
			from = VMSTACK_VM_PC_NONE;
		} else if ((link & d->pc_mask) == d->pc_val) {
			/* Called from the VM: link is the caller's return PC. */
			if (!vmstack_vm_read(w, &insn, link + d->insn_off, sizeof(insn)))
				return VMSTACK_VMB_READ;
			field = (insn >> d->insn_shift) &
				((1U << d->insn_bits) - 1);
			next = frame - (unsigned long)d->slot * (d->extra + field);
			pc = link;
			from = VMSTACK_VM_PC_LINK;
		} else {
			next = frame - (link & ~(unsigned long)d->type_mask);
			/*
			 * F_PC_CHECK: a hidden frame's function runs in the
			 * frame below it (LuaJIT's vararg frames): its PC too.
			 */
			if (shown || !(d->flags & VMSTACK_VM_F_PC_CHECK)) {
				pc = 0;
				from = VMSTACK_VM_PC_NONE;
			}
			if (vmstack_vm_bottom(w, d, frame, type)) {
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
static bool vmstack_vm_empty(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			     unsigned long ar)
{
	s32 v;

	return (d->flags & VMSTACK_VM_F_AR_EMPTY) &&
	       vmstack_vm_read(w, &v, ar + d->ar_empty_off, sizeof(v)) && v < 0;
}

/*
 * F_AR_CHAIN: false only when the state's chain of activations ends
 * without reaching @ar: the VM has not linked it yet, or has unlinked it.
 */
static bool vmstack_vm_linked(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			      unsigned long state, unsigned long ar)
{
	unsigned long link;
	u32 i;

	if (!(d->flags & VMSTACK_VM_F_AR_CHAIN) ||
	    !vmstack_vm_read(w, &link, state + d->state_ar_off, sizeof(link)))
		return true;
	for (i = 0; i < d->ar_chain_max; i++) {
		link &= ~(unsigned long)d->ar_mask;
		if (link == ar)
			return true;
		if (!link)
			return false;
		if (!vmstack_vm_read(w, &link, link + d->ar_prev_off, sizeof(link)))
			return true;
	}
	return true;
}

/* A state that passes the descriptor's check. */
static bool vmstack_vm_sane(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			    unsigned long state)
{
	u8 check;

	return vmstack_vm_read(w, &check, state + d->check_off, 1) &&
	       check == d->check_val;
}

/*
 * STATE_THREAD: the sampled thread's own state, on the VM's list of them
 * by the thread id each keeps; 0 if it is not there (or the list cannot
 * be read). Looked up once per sample and VM: every activation of the
 * thread has the same state.
 */
static unsigned long vmstack_vm_thread(struct vmstack_walk *w,
				       const struct vmstack_vm_desc *d)
{
	unsigned int i = (unsigned int)(d - w->vms);
	unsigned long t = 0;
	u32 n, tid;

	if (w->vm_thread_tried & (1U << i))
		return w->vm_thread[i];
	w->vm_thread_tried |= 1U << i;
	w->vm_thread[i] = 0;
	if (!vmstack_vm_read(w, &t, d->state_addr, sizeof(t)) ||
	    !vmstack_vm_read(w, &t, t + d->thr_head_off, sizeof(t)))
		return 0;
	for (n = 0; t && n < d->thr_max; n++) {
		if (!vmstack_vm_read(w, &tid, t + d->thr_tid_off, sizeof(tid)))
			return 0;
		if (tid == w->tid) {
			w->vm_thread[i] = t;
			return t;
		}
		if (!vmstack_vm_read(w, &t, t + d->thr_next_off, sizeof(t)))
			return 0;
	}
	return 0;
}

/* The VM state at activation record @ar, if it looks like one. */
static bool vmstack_vm_state(struct vmstack_walk *w, const struct vmstack_vm_desc *d, unsigned long ar,
			     unsigned long *state)
{
	return vmstack_vm_ref(w, d, state, ar + d->state_off) &&
	       vmstack_vm_sane(w, d, *state);
}

/* The VM's native caller, by the registers its entry saved at @ar. */
static bool vmstack_vm_caller(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			      const struct vmstack_user_regs *r, unsigned long ar,
			      struct vmstack_user_regs *caller)
{
	unsigned long bp, ra, sp = ar + d->caller_sp_off;

	/* Up the stack by a word at least, aligned, not absurdly far: as a native step. */
	if ((sp & 7) || sp < r->sp + 8 || sp - r->sp > VMSTACK_USER_STACK_SPAN ||
	    !vmstack_vm_read(w, &bp, ar + d->caller_bp_off, sizeof(bp)) ||
	    !vmstack_vm_read(w, &ra, ar + d->caller_ra_off, sizeof(ra)))
		return false;
	caller->bp = bp;
	caller->ip = ra;
	caller->sp = sp;
	return true;
}

/* Where a VM's compiled code objects are: a table of count entries. */
struct vmstack_jit_table {
	unsigned long table;
	u32 count;
};

/*
 * Does code object number @id hold @ip? Its address in *obj either way,
 * 0 if there is no such object.
 */
static bool vmstack_vm_jit_holds(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
				 const struct vmstack_jit_table *t, u32 id,
				 unsigned long ip, unsigned long *obj)
{
	unsigned long ent, code;
	u32 size;

	*obj = 0;
	if (id >= t->count ||
	    !vmstack_vm_ref(w, d, &ent, t->table + vmstack_vm_ref_size(d) * id))
		return false;
	*obj = ent & d->func_mask;
	return vmstack_vm_read(w, &code, *obj + d->jit_code_off, sizeof(code)) &&
	       vmstack_vm_read(w, &size, *obj + d->jit_size_off, sizeof(size)) &&
	       ip - code < size;
}

/*
 * F_JIT_NEAR: the objects object @from may have jumped into before the
 * new one stored its number: the one it links to, then its root's chain.
 */
static bool vmstack_vm_jit_near(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
				const struct vmstack_jit_table *t, unsigned long from,
				unsigned long ip, unsigned long *obj)
{
	unsigned long root = from;
	u16 link, r, next;
	u32 n;

	if (vmstack_vm_read(w, &link, from + d->jit_link_off, sizeof(link)) && link &&
	    vmstack_vm_jit_holds(w, d, t, link, ip, obj))
		return true;
	if (!vmstack_vm_read(w, &r, from + d->jit_root_off, sizeof(r)))
		return false;
	if (r && (r >= t->count ||
		  !vmstack_vm_ref(w, d, &root, t->table + vmstack_vm_ref_size(d) * r)))
		return false;
	root &= d->func_mask;
	if (!vmstack_vm_read(w, &next, root + d->jit_side_off, sizeof(next)))
		return false;
	/* The link was the first object tried. */
	for (n = 1; next && n < d->jit_near_max; n++) {
		if (vmstack_vm_jit_holds(w, d, t, next, ip, obj))
			return true;
		if (!*obj || !vmstack_vm_read(w, &next, *obj + d->jit_side_off, sizeof(next)))
			return false;
	}
	return false;
}

/* Through anchor value @a, the code object of VM @d that holds @ip. */
static bool vmstack_vm_jit_at(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
			      unsigned long a, unsigned long ip, unsigned long *obj)
{
	struct vmstack_jit_table t;
	unsigned long from = 0;
	s32 id;

	if (!vmstack_vm_read(w, &id, a + d->jit_id_off, sizeof(id)) || id < 0 ||
	    !vmstack_vm_read(w, &t.count, a + d->jit_count_off, sizeof(t.count)) ||
	    !vmstack_vm_read(w, &t.table, a + d->jit_table_off, sizeof(t.table)))
		return false;
	if (vmstack_vm_jit_holds(w, d, &t, (u32)id, ip, &from) ||
	    (from && (d->flags & VMSTACK_VM_F_JIT_NEAR) &&
	     vmstack_vm_jit_near(w, d, &t, from, ip, &from))) {
		*obj = from;
		return true;
	}
	return false;
}

/* VM @d's anchor in this sample: the sampled register, or the variable's value. */
static bool vmstack_vm_jit_anchor(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
				  unsigned long *a)
{
	if (d->jit_reg)
		*a = w->regs[d->jit_reg];
	else if (!vmstack_vm_read(w, a, d->jit_anchor_ptr, sizeof(*a)))
		return false;
	*a += d->jit_anchor_adj;
	return true;
}

/*
 * The VM whose compiled code holds @ip, found through the sampled
 * registers or the anchor variable (F_JIT); *anchor and the code object
 * *obj as found.
 */
static const struct vmstack_vm_desc *
vmstack_vm_jit_find(struct vmstack_walk *w, unsigned long ip,
		    unsigned long *anchor, unsigned long *obj)
{
	unsigned long a;
	u32 i, faults;

	/* Nothing left to try in this sample: one test per frame. */
	if (w->jit_done == (1U << w->nr_vms) - 1)
		return NULL;
	for (i = 0; i < w->nr_vms; i++) {
		const struct vmstack_vm_desc *d = &w->vms[i];

		if (w->jit_done & (1U << i))
			continue;
		if (!(d->flags & VMSTACK_VM_F_JIT)) {
			w->jit_done |= 1U << i;
			continue;
		}
		/*
		 * The anchor is the same at every frame of a sample (a sampled
		 * register, or a variable), and so is every address read
		 * through it up to the code object's range: only @ip differs.
		 * A fault on the way would be met again at every frame, so
		 * the anchor is dropped for the rest of the sample instead.
		 */
		faults = w->faults;
		if (!(w->jit_dead & (1U << i)) && vmstack_vm_jit_anchor(w, d, &a) &&
		    vmstack_vm_jit_at(w, d, a, ip, obj)) {
			if (w->jit_seen)
				w->jit_seen[i] = a;
			*anchor = a;
			return d;
		}
		if (w->faults != faults)
			w->jit_dead |= 1U << i;
		/*
		 * C code that compiled code called (through the FFI) may have
		 * saved the anchor register and reused it; where it saved it
		 * only its CFI says. Try the anchor this CPU last proved for
		 * this VM in this process: it holds only if the code object
		 * it names holds @ip, which another VM's (another thread's
		 * global state) cannot. One that faults is forgotten.
		 */
		if (!d->jit_reg || !w->jit_seen || !w->jit_seen[i] ||
		    w->jit_seen[i] == w->regs[d->jit_reg] + d->jit_anchor_adj) {
			if (w->jit_dead & (1U << i))
				w->jit_done |= 1U << i;
			continue;
		}
		faults = w->faults;
		if (vmstack_vm_jit_at(w, d, w->jit_seen[i], ip, obj)) {
			*anchor = w->jit_seen[i];
			return d;
		}
		if (w->faults != faults) {
			w->jit_seen[i] = 0;
			if (w->jit_dead & (1U << i))
				w->jit_done |= 1U << i;
		}
	}
	return NULL;
}

/*
 * A sample in compiled code: the code object's frame, the VM frames from
 * the top the VM keeps for compiled code, then the activation's caller.
 * Compiled code keeps no frame chain: if the state fails, the stack ends.
 */
static enum vmstack_splice
vmstack_vm_splice_jit(struct vmstack_walk *w, const struct vmstack_vm_desc *d,
		      const struct vmstack_user_regs *r, unsigned long anchor,
		      unsigned long obj, struct vmstack_vm_cursor *cur,
		      struct vmstack_user_regs *caller)
{
	unsigned long state = 0, top, ar = 0;
	int broken = 0;

	vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_JIT, obj));
	w->flags |= VMSTACK_SF_VM;
	cur->next_top = 0;
	if (!vmstack_vm_ref(w, d, &state, anchor + d->jit_state_off) ||
	    !vmstack_vm_sane(w, d, state))
		broken = VMSTACK_VMB_STATE;
	else if (!vmstack_vm_ref(w, d, &top, anchor + d->jit_top_off))
		broken = VMSTACK_VMB_READ;
	else
		broken = vmstack_vm_walk(w, d, state, top + d->top_adj, 0, cur);
	if (broken != VMSTACK_VMB_STATE &&
	    !vmstack_vm_read(w, &ar, state + d->state_ar_off, sizeof(ar)) && !broken)
		broken = VMSTACK_VMB_READ;
	if (broken)
		vmstack_vm_cut(w, d, broken);
	if (!ar || !vmstack_vm_caller(w, d, r, ar & ~d->ar_mask, caller))
		caller->ip = 0;
	return VMSTACK_SPLICE_CALLER;
}

/*
 * The merge rule, all of it: what stands for the native frame @r (the
 * sampled one if @at_leaf) in the stack, and where unwinding goes on.
 */
enum vmstack_splice vmstack_vm_splice(struct vmstack_walk *w,
				      const struct vmstack_user_regs *r,
				      bool at_leaf, bool no_rules,
				      struct vmstack_vm_cursor *cur,
				      struct vmstack_user_regs *caller)
{
	const struct vmstack_vm_desc *d = vmstack_vm_find(w, r->ip);
	unsigned long ar, state = 0, top, pc = 0, anchor, obj = 0;
	unsigned int n0;
	u16 unverified0;
	int broken = 0;

	/* Faults spent: a VM's native frame stays, after a cut marker. */
	if (w->faults >= VMSTACK_MAX_VM_FAULTS) {
		if (!d)
			return VMSTACK_SPLICE_NONE;
		vmstack_vm_cut(w, d, VMSTACK_VMB_FAULTS);
		return VMSTACK_SPLICE_NATIVE;
	}

	/*
	 * Code the JIT compiled calls helpers and C functions, which keep a
	 * callee-saved anchor register as it was unless they use it: the
	 * sampled value then still serves the compiled caller. The lookup
	 * proves it (the code object must hold r->ip); if it fails, the
	 * stack ends there as it would have anyway.
	 */
	if (!d && no_rules)
		d = vmstack_vm_jit_find(w, r->ip, &anchor, &obj);
	if (!d)
		return VMSTACK_SPLICE_NONE;
	if (obj)
		return vmstack_vm_splice_jit(w, d, r, anchor, obj, cur, caller);
	ar = r->sp + d->ar_off;
	if (d->state_from == VMSTACK_VM_STATE_AR) {
		/* A helper leaves the VM's registers (top frame, PC) alone. */
		if (!vmstack_vm_state(w, d, ar, &state) && at_leaf && d->ar_leaf_off)
			ar = r->sp + d->ar_leaf_off;
		if (!vmstack_vm_state(w, d, ar, &state))
			broken = VMSTACK_VMB_STATE;
		else if (vmstack_vm_empty(w, d, ar) || !vmstack_vm_linked(w, d, state, ar))
			goto empty;
	} else if (d->state_from != VMSTACK_VM_STATE_NONE) {
		if (d->state_from == VMSTACK_VM_STATE_THREAD)
			state = vmstack_vm_thread(w, d);
		else if (!vmstack_vm_read(w, &state, d->state_addr, sizeof(state)))
			state = 0;
		if (!state || !vmstack_vm_sane(w, d, state))
			broken = VMSTACK_VMB_STATE;
		else if (!vmstack_vm_linked(w, d, state, ar))
			/* Not linked yet, or not any more: no VM frames of its own. */
			goto empty;
	}
	n0 = w->n;
	unverified0 = w->flags & VMSTACK_SF_VM_UNVERIFIED;
	if (!broken && (d->top_reg == VMSTACK_VM_REG_RBP || (at_leaf && d->top_reg))) {
		top = d->top_reg == VMSTACK_VM_REG_RBP ? r->bp : w->regs[d->top_reg];
		top += d->top_adj;
		if (at_leaf && d->pc_reg)
			pc = w->regs[d->pc_reg];
		cur->next_top = 0;
		/*
		 * The register holds the top frame most of the time, not
		 * always (it is also scratch): if its walk fails, start over
		 * from the state's own, possibly older, top.
		 */
		broken = vmstack_vm_walk(w, d, state, top, pc, cur);
		if (!broken)
			goto shown;
		if (d->state_from != VMSTACK_VM_STATE_NONE) {
			broken = 0;
			w->n = n0;
			w->flags = (w->flags & ~VMSTACK_SF_VM_UNVERIFIED) | unverified0;
			/*
			 * F_PC_CHECK: the PC register still tells a frame
			 * being left, and is shown only where it lies in
			 * the top's code; else it is not the state's top's.
			 */
			if (!(d->flags & VMSTACK_VM_F_PC_CHECK))
				pc = 0;
		}
	}
	if (!broken && cur->next_top && cur->state == state &&
	    !(d->flags & VMSTACK_VM_F_TOP_AR)) {
		/* An outer activation of the state walked last. */
		top = cur->next_top;
	} else if (!broken) {
		/* F_TOP_AR: each activation knows its own top frame. */
		if (vmstack_vm_read(w, &top, (d->flags & VMSTACK_VM_F_TOP_AR ? ar : state) +
					       d->top_off, sizeof(top)))
			top += d->top_adj;
		else
			broken = VMSTACK_VMB_READ;
	}
	cur->next_top = 0;
	if (!broken)
		broken = vmstack_vm_walk(w, d, state, top, pc, cur);
	if (broken)
		vmstack_vm_cut(w, d, broken);
	/* No state: the native frame stays, after the marker. */
	if (broken == VMSTACK_VMB_STATE)
		return VMSTACK_SPLICE_NATIVE;
shown:
	w->flags |= VMSTACK_SF_VM;
	/* A VM in plain C: its own unwind rules lead to its caller. */
	if (d->flags & VMSTACK_VM_F_NATIVE_STEP)
		return VMSTACK_SPLICE_STEP;
	if (vmstack_vm_caller(w, d, r, ar, caller))
		return VMSTACK_SPLICE_CALLER;
	/* No way back from the VM's entry: keep its native frame. */
	return VMSTACK_SPLICE_NATIVE;

empty:
	/* An activation without VM frames: a VM in C keeps its native frame... */
	if (d->flags & VMSTACK_VM_F_NATIVE_STEP)
		return VMSTACK_SPLICE_NATIVE;
	/* ...others drop it too, and go on from the registers its entry saved. */
	if (vmstack_vm_caller(w, d, r, ar, caller))
		return VMSTACK_SPLICE_CALLER;
	return VMSTACK_SPLICE_NATIVE;
}
