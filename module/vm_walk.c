// SPDX-License-Identifier: GPL-2.0
/*
 * VM frames spliced into the native stack: the merge rule's fixed part,
 * the same for every interpreter (ABI 4). It finds activations (a native
 * frame whose PC lies in a VM's entry range, or in code the VM compiled),
 * runs the VM's program there (vm_prog.c: what differs between
 * interpreters, bounded per run and per sample), and acts on its exit:
 * the VM frames stand for the native frame, the walk goes on from the
 * caller's registers the VM's entry saved, or from the native frame's own
 * rules. Runs in the sample handler: nofault reads only, every loop
 * bounded. Bad VM data cuts the VM part with a visible marker and a
 * counter; the native walk goes on regardless. Pure code (walk.h): the
 * host unit tests run it on fake stacks.
 */
#include "vm_edges.h"
#include "vm_prog.h"
#include "vm_walk.h"

/* The VM one of whose entry ranges holds @pc, or NULL. */
static const struct vmstack_vm_desc4 *vmstack_vm_find(struct vmstack_walk *w,
						      unsigned long pc)
{
	u32 i, k;

	for (i = 0; i < w->nr_vms; i++)
		for (k = 0; k < VMSTACK_VM4_RANGES; k++)
			if (pc >= w->vms[i].ranges[k].start && pc < w->vms[i].ranges[k].end)
				return &w->vms[i];
	return NULL;
}

/*
 * The VM part is cut here: a marker with the reason, and (unless the read
 * budget cut it: that is counted on its own) the VM_BROKEN flag.
 */
static void vmstack_vm_cut(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
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

/* The VM's native caller, by the registers its entry saved at @ar. */
static bool vmstack_vm_caller(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
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

/*
 * Does @ra, a return address, lie in code: a mapping with unwind rules, or
 * a VM's entry range? Without rules (frame pointers only) nothing can be
 * told, and it is taken.
 */
static bool vmstack_vm_in_code(struct vmstack_walk *w, unsigned long ra)
{
	bool hit;

	return !w->rules || vmstack_uw_lookup_cached(w->rules, w->uw_cache, ra - 1, &hit) ||
	       vmstack_vm_find(w, ra - 1);
}

/* Where a VM's compiled code objects are: a table of count entries. */
struct vmstack_jit_table {
	unsigned long table;
	u32 count;
};

/*
 * Entry @id of the table (4 bytes each with F4_JIT_REF32: LuaJIT without
 * GC64), zero-extended.
 */
static bool vmstack_vm_jit_entry(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				 const struct vmstack_jit_table *t, u32 id, unsigned long *v)
{
	u32 ref;

	if (!(d->flags & VMSTACK_VM4_F_JIT_REF32))
		return vmstack_vm_read(w, v, t->table + 8UL * id, sizeof(*v));
	if (!vmstack_vm_read(w, &ref, t->table + 4UL * id, sizeof(ref)))
		return false;
	*v = ref;
	return true;
}

/*
 * Does code object number @id hold @ip? Its address in *obj either way,
 * 0 if there is no such object.
 */
static bool vmstack_vm_jit_holds(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				 const struct vmstack_jit_table *t, u32 id,
				 unsigned long ip, unsigned long *obj)
{
	unsigned long ent, code;
	u32 size;

	*obj = 0;
	if (id >= t->count ||
	    !vmstack_vm_jit_entry(w, d, t, id, &ent))
		return false;
	*obj = ent & d->jit_mask;
	return vmstack_vm_read(w, &code, *obj + d->jit_code_off, sizeof(code)) &&
	       vmstack_vm_read(w, &size, *obj + d->jit_size_off, sizeof(size)) &&
	       ip - code < size;
}

/*
 * F_JIT_NEAR: the objects object @from may have jumped into before the
 * new one stored its number: the one it links to, then its root's chain.
 */
static bool vmstack_vm_jit_near(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
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
	if (r && (r >= t->count || !vmstack_vm_jit_entry(w, d, t, r, &root)))
		return false;
	root &= d->jit_mask;
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

/*
 * F4_JIT_AREAS: does one of the code areas of the VM at anchor @a hold
 * @ip? Each area starts with the next one's address and its own size;
 * one not page-aligned, or larger than any, ends the search.
 */
static bool vmstack_vm_jit_in_areas(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				    unsigned long a, unsigned long ip)
{
	unsigned long area, size;
	u32 n;

	if (!vmstack_vm_read(w, &area, a + d->jit_area_off, sizeof(area)))
		return false;
	for (n = 0; area && n < d->jit_areas_max; n++) {
		if ((area & 4095) || !vmstack_vm_read(w, &size, area + 8, sizeof(size)) ||
		    size > VMSTACK_VM_JIT_AREA_MAX)
			return false;
		if (ip - area < size)
			return true;
		if (!vmstack_vm_read(w, &area, area, sizeof(area)))
			return false;
	}
	return false;
}

/*
 * Through anchor value @a: does VM @d's compiled code hold @ip? The code
 * object that holds it in *obj, 0 when only its code areas are known to.
 */
static bool vmstack_vm_jit_at(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
			      unsigned long a, unsigned long ip, unsigned long *obj)
{
	struct vmstack_jit_table t;
	unsigned long from = 0;
	s32 id;

	*obj = 0;
	if (!vmstack_vm_read(w, &id, a + d->jit_id_off, sizeof(id)))
		return false;
	if (id >= 0 &&
	    vmstack_vm_read(w, &t.count, a + d->jit_count_off, sizeof(t.count)) &&
	    vmstack_vm_read(w, &t.table, a + d->jit_table_off, sizeof(t.table)) &&
	    (vmstack_vm_jit_holds(w, d, &t, (u32)id, ip, &from) ||
	     (from && (d->flags & VMSTACK_VM4_F_JIT_NEAR) &&
	      vmstack_vm_jit_near(w, d, &t, from, ip, &from)))) {
		*obj = from;
		return true;
	}
	return (d->flags & VMSTACK_VM4_F_JIT_AREAS) && vmstack_vm_jit_in_areas(w, d, a, ip);
}

/* VM @d's anchor in this sample: the sampled register, or the variable's value. */
static bool vmstack_vm_jit_anchor(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
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
 * *obj as found (0: in the VM's code areas, no object known).
 */
static const struct vmstack_vm_desc4 *
vmstack_vm_jit_find(struct vmstack_walk *w, unsigned long ip,
		    unsigned long *anchor, unsigned long *obj)
{
	unsigned long a;
	u32 i, faults;

	/* Nothing left to try in this sample: one test per frame. */
	if (w->jit_done == (1U << w->nr_vms) - 1)
		return NULL;
	for (i = 0; i < w->nr_vms; i++) {
		const struct vmstack_vm_desc4 *d = &w->vms[i];

		if (w->jit_done & (1U << i))
			continue;
		if (!(d->flags & VMSTACK_VM4_F_JIT)) {
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
 * Run @d's program at native frame @r (@at: enum vmstack_vm4_at; @a and
 * @b are r1 and r2: sp and bp, or for compiled code the anchor and the
 * code object). Returns its exit; @ar is r1 at the exit, the activation
 * record (0: none).
 */
static int vmstack_vm_run(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
			  const struct vmstack_user_regs *r, bool at_leaf, u64 at,
			  unsigned long a, unsigned long b, unsigned long *ar)
{
	u64 regs[VMSTACK_VM4_REGS] = {
		at, a, b, r->ip, at_leaf, w->tid, w->tls,
	};
	unsigned int i;
	int end;

	for (i = 0; i < VMSTACK_VM4_CARRIED; i++)
		regs[VMSTACK_VM4_CARRY_FIRST + i] = w->vm_carry[d - w->vms][i];
	end = vmstack_vm_prog_run(w, d, regs);
	*ar = (unsigned long)regs[1];
	return end;
}

/*
 * The merge rule, all of it: what stands for the native frame @r (the
 * sampled one if @at_leaf) in the stack, and where unwinding goes on.
 */
enum vmstack_splice vmstack_vm_splice(struct vmstack_walk *w,
				      const struct vmstack_user_regs *r,
				      bool at_leaf, bool no_rules,
				      struct vmstack_user_regs *caller)
{
	const struct vmstack_vm_desc4 *d = vmstack_vm_find(w, r->ip);
	unsigned long anchor, obj = 0, ar;
	bool jit = false;
	int end;

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
	if (!d && no_rules) {
		d = vmstack_vm_jit_find(w, r->ip, &anchor, &obj);
		jit = !!d;
	}
	if (!d)
		return VMSTACK_SPLICE_NONE;
	/*
	 * Sampled in a VM's entry from C or return to C (vm_edges.c: LuaJIT's
	 * pushes before its cframe is linked, its pops after it is unlinked):
	 * the activation has no VM frames, sp does not find the AR, and stale
	 * slots there could pass for it. The code says where the caller is;
	 * the native frame stays, the sampled pc. A VM in plain C steps by its
	 * compiler's rules, right in its prologues and epilogues too.
	 */
	if (at_leaf && !jit && !(d->flags & VMSTACK_VM4_F_NATIVE_STEP) &&
	    vmstack_vm_edge(w, d, r, caller)) {
		vmstack_vm_emit(w, r->ip);
		return VMSTACK_SPLICE_CALLER;
	}
	if (jit) {
		/*
		 * Compiled code keeps no frame chain: the code object's frame
		 * (where it is known), the program's frames from it, then the
		 * activation's caller by the AR the program gives, or the
		 * stack ends.
		 */
		if (obj)
			vmstack_vm_emit(w, vmstack_vm_word(w, d, VMSTACK_VMW_JIT, obj));
		w->flags |= VMSTACK_SF_VM;
		end = vmstack_vm_run(w, d, r, at_leaf, VMSTACK_VM4_AT_JIT, anchor, obj, &ar);
		if (end >= VMSTACK_VM4_X_CUT)
			vmstack_vm_cut(w, d, end - VMSTACK_VM4_X_CUT);
		if (!ar || !vmstack_vm_caller(w, d, r, ar, caller))
			caller->ip = 0;
		return VMSTACK_SPLICE_CALLER;
	}
	end = vmstack_vm_run(w, d, r, at_leaf, VMSTACK_VM4_AT_NATIVE, r->sp, r->bp, &ar);
	if (end == VMSTACK_VM4_X_EMPTY) {
		/* No VM frames of its own: a VM in C keeps its native frame... */
		if (d->flags & VMSTACK_VM4_F_NATIVE_STEP)
			return VMSTACK_SPLICE_NATIVE;
		/* ...others drop it too, and go on from the registers its entry saved. */
		if (!ar || !vmstack_vm_caller(w, d, r, ar, caller))
			return VMSTACK_SPLICE_NATIVE;
		/*
		 * At the sampled frame the AR is where sp says, and sp may be
		 * part-way through an entry or exit the code above did not
		 * prove: a stale slot there could pass for the state, and its
		 * "return address" would be a frame never on the stack. One
		 * that is no code ends the stack, cut.
		 */
		if (at_leaf && !vmstack_vm_in_code(w, caller->ip)) {
			vmstack_vm_cut(w, d, VMSTACK_VMB_FRAME);
			caller->ip = 0;
		}
		return VMSTACK_SPLICE_CALLER;
	}
	if (end >= VMSTACK_VM4_X_CUT) {
		vmstack_vm_cut(w, d, end - VMSTACK_VM4_X_CUT);
		/* No state: the native frame stays, after the marker. */
		if (end == VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE)
			return VMSTACK_SPLICE_NATIVE;
	}
	w->flags |= VMSTACK_SF_VM;
	/* A VM in plain C: its own unwind rules lead to its caller. */
	if (d->flags & VMSTACK_VM4_F_NATIVE_STEP)
		return VMSTACK_SPLICE_STEP;
	if (ar && vmstack_vm_caller(w, d, r, ar, caller))
		return VMSTACK_SPLICE_CALLER;
	/* No way back from the VM's entry: keep its native frame. */
	return VMSTACK_SPLICE_NATIVE;
}
