// SPDX-License-Identifier: GPL-2.0
/*
 * ABI 3 descriptors compiled to ABI 4 programs (desc3_prog.h): finding
 * the state (the activation record, a global, the thread's entry on a
 * list), activations without frames, the top frame (a register first, the
 * state's after), compiled code's frames, and the exits. The frame loop is
 * desc3_walk.c's. Each part is ABI 3.6's module/vm_walk.c, read for read:
 * what 3.6 did after a failed read (try another place, take a default)
 * is a load that fails over to a label.
 */
#include <string.h>

#include "vm/desc3_prog.h"
#include "vm/desc3_tr.h"

void desc3_ref(struct desc3_tr *t, int dst, int src, int32_t off, vm_label fail)
{
	vm_prog_ld(&t->p, t->ref32 ? 4 : 8, 0, dst, src, off, fail);
}

static void mov_k(struct desc3_tr *t, int dst, int32_t v)
{
	vm_prog_alu_k(&t->p, VMSTACK_VM4_MOV_K, dst, v);
}

static void exit_with(struct desc3_tr *t, int how)
{
	vm_prog_insn(&t->p, VMSTACK_VM4_EXIT, 0, 0, how);
}

/* A state passes the check byte (3.6's vmstack_vm_sane), else to @fail. */
static void sane(struct desc3_tr *t, vm_label fail)
{
	vm_prog_ld(&t->p, 1, 0, R_A, R_STATE, t->d->check_off, fail);
	vm_prog_jmp_k(&t->p, VMSTACK_VM4_JNE_K, R_A, t->d->check_val, fail);
}

/* The state at R_AR into R_STATE, checked; else to @fail. */
static void state_at_ar(struct desc3_tr *t, vm_label fail)
{
	desc3_ref(t, R_STATE, R_AR, t->d->state_off, fail);
	sane(t, fail);
}

/*
 * STATE_AR: the state at the AR, or (at the sampled frame) at the AR of
 * a leaf helper the VM called without a frame of its own. 3.6 reads it
 * twice whatever the first read gave: at the same AR again, or at the
 * leaf's where the first failed.
 */
static void state_ar(struct desc3_tr *t, vm_label no_state)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label again = vm_prog_label(p), leaf = vm_prog_label(p);
	vm_label retry = vm_prog_label(p);

	state_at_ar(t, again);
	vm_prog_ja(p, retry);
	vm_prog_bind(p, again);
	if (d->ar_leaf_off) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_LEAF, leaf);
		vm_prog_ja(p, retry);
		vm_prog_bind(p, leaf);
		vm_prog_alu_k(p, VMSTACK_VM4_SUB_K, R_AR, d->ar_off);
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_AR, d->ar_leaf_off);
	}
	vm_prog_bind(p, retry);
	state_at_ar(t, no_state);
}

/*
 * STATE_THREAD: the thread's state (R_THR), looked up once a sample: the
 * list's entry whose thread id is r5's. 0 when not found or unreadable.
 */
static void state_thread(struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label have = vm_prog_label(p), loop = vm_prog_label(p);
	vm_label found = vm_prog_label(p);

	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_TRIED, 0, have);
	mov_k(t, R_TRIED, 1);
	mov_k(t, R_THR, 0);
	vm_prog_mov64(p, R_A, d->state_addr);
	vm_prog_ld(p, 8, 0, R_A, R_A, 0, have);
	vm_prog_ld(p, 8, 0, R_A, R_A, d->thr_head_off, have);
	mov_k(t, R_B, 0);
	vm_prog_bind(p, loop);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_A, 0, have);
	vm_prog_jmp_k(p, VMSTACK_VM4_JGE_K, R_B, (int32_t)d->thr_max, have);
	vm_prog_ld(p, 4, 0, R_C, R_A, d->thr_tid_off, have);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_C, 5, found);
	vm_prog_ld(p, 8, 0, R_A, R_A, d->thr_next_off, have);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, 1);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, found);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_THR, R_A);
	vm_prog_bind(p, have);
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_STATE, R_THR);
}

/*
 * F_AR_CHAIN: to @empty only when the state's chain of activations ends
 * (NULL) without reaching the AR; an unreadable or long chain proves
 * nothing.
 */
static void linked(struct desc3_tr *t, vm_label empty)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label yes = vm_prog_label(p), loop = vm_prog_label(p);

	vm_prog_ld(p, 8, 0, R_A, R_STATE, d->state_ar_off, yes);
	mov_k(t, R_B, 0);
	vm_prog_bind(p, loop);
	vm_prog_jmp_k(p, VMSTACK_VM4_JGE_K, R_B, (int32_t)d->ar_chain_max, yes);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_A, ~(int32_t)d->ar_mask);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, R_A, R_AR, yes);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_A, 0, empty);
	vm_prog_ld(p, 8, 0, R_A, R_A, d->ar_prev_off, yes);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, 1);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, yes);
}

/* The state, by state_from; on to @empty, or @no_state (3.6's VMB_STATE). */
static void state(struct desc3_tr *t, vm_label empty, vm_label no_state)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label l;

	switch (d->state_from) {
	case VMSTACK_VM_STATE_NONE:
		mov_k(t, R_STATE, 0);
		return;
	case VMSTACK_VM_STATE_AR:
		state_ar(t, no_state);
		if (d->flags & VMSTACK_VM_F_AR_EMPTY) {
			/* An unreadable count says nothing: not empty. */
			l = vm_prog_label(p);
			vm_prog_ld(p, 4, 1, R_A, R_AR, d->ar_empty_off, l);
			vm_prog_jmp_k(p, VMSTACK_VM4_JSLT_K, R_A, 0, empty);
			vm_prog_bind(p, l);
		}
		break;
	case VMSTACK_VM_STATE_THREAD:
		state_thread(t);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_STATE, 0, no_state);
		sane(t, no_state);
		break;
	default:
		vm_prog_mov64(p, R_A, d->state_addr);
		vm_prog_ld(p, 8, 0, R_STATE, R_A, 0, no_state);
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_STATE, 0, no_state);
		sane(t, no_state);
		break;
	}
	if (d->flags & VMSTACK_VM_F_AR_CHAIN)
		linked(t, empty);
}

/* R_PC = pc_reg at the sampled frame, else 0. */
static void pc_from_reg(struct desc3_tr *t)
{
	vm_label l = vm_prog_label(&t->p);

	if (t->d->pc_reg) {
		vm_prog_ldreg(&t->p, R_PC, t->d->pc_reg);
		vm_prog_jmp_k(&t->p, VMSTACK_VM4_JSET_K, R_BITS, B_LEAF, l);
	}
	mov_k(t, R_PC, 0);
	vm_prog_bind(&t->p, l);
}

/* The exit for the walk's result in R_I: shown, or cut with its reason. */
static void exit_by_result(struct desc3_tr *t)
{
	static const int reasons[] = { VMSTACK_VMB_READ, VMSTACK_VMB_FRAME,
				       VMSTACK_VMB_CHECK, VMSTACK_VMB_DEPTH };
	vm_label shown = vm_prog_label(&t->p), l;
	unsigned int i;

	/* Most walks end shown (R_I 0): one compare. */
	vm_prog_jmp_k(&t->p, VMSTACK_VM4_JEQ_K, R_I, 0, shown);
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		l = vm_prog_label(&t->p);
		vm_prog_jmp_k(&t->p, VMSTACK_VM4_JNE_K, R_I, reasons[i], l);
		exit_with(t, VMSTACK_VM4_X_CUT + reasons[i]);
		vm_prog_bind(&t->p, l);
	}
	vm_prog_bind(&t->p, shown);
	exit_with(t, VMSTACK_VM4_X_SHOWN);
}

/*
 * The top frame from the state (or F_TOP_AR, the AR), unless the outer
 * activation of the same state walked last in this sample left where its
 * frames start (R_NEXT): the state's own top knows only the innermost.
 */
static void walk_from_state(struct desc3_tr *t)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label read = vm_prog_label(p), go = vm_prog_label(p);
	vm_label fail = vm_prog_label(p);
	bool top_ar = d->flags & VMSTACK_VM_F_TOP_AR;

	if (!top_ar) {
		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_NEXT, 0, read);
		vm_prog_jmp(p, VMSTACK_VM4_JNE, R_NSTATE, R_STATE, read);
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, R_NEXT);
		vm_prog_ja(p, go);
	}
	vm_prog_bind(p, read);
	vm_prog_ld(p, 8, 0, R_FRAME, top_ar ? R_AR : R_STATE, d->top_off, fail);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_FRAME, d->top_adj);
	vm_prog_bind(p, go);
	mov_k(t, R_NEXT, 0);
	vm_prog_ja(p, t->walk);
	vm_prog_bind(p, fail);
	mov_k(t, R_NEXT, 0);
	exit_with(t, VMSTACK_VM4_X_CUT + VMSTACK_VMB_READ);
}

/*
 * R_A = G, the exit's anchor plus jit_anchor_adj: the anchor variable's
 * value (jit_reg NONE), else the register, @live as sampled or as the
 * handler saved it (R_C + exit_anchor_off - ar_off). A read that fails
 * goes to @fail.
 */
static void exit_anchor(struct desc3_tr *t, bool live, vm_label fail)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;

	if (d->jit_reg == VMSTACK_VM_REG_NONE) {
		vm_prog_mov64(p, R_A, d->jit_anchor_ptr);
		vm_prog_ld(p, 8, 0, R_A, R_A, 0, fail);
	} else if (live) {
		vm_prog_ldreg(p, R_A, d->jit_reg);
	} else {
		/* R_C: the frame's sp + ar_off (native() kept it). */
		vm_prog_ld(p, 8, 0, R_A, R_C, d->exit_anchor_off - d->ar_off, fail);
	}
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_A, d->jit_anchor_adj);
}

/*
 * F_JIT_EXIT: a native frame whose AR holds no sane state is the trace
 * exit handler's (desc3.h) if the anchor it saved names a VM in a trace
 * exit; else on to @no_state. The frames start at the compiled code's
 * top while the handler has not cleared it (sampled in its own code:
 * the state's top may be older), else at the state's (@from_state).
 * @in_exit: where the state is read, R_A holding the anchor.
 */
static void trace_exit(struct desc3_tr *t, vm_label no_state, vm_label from_state,
		       vm_label in_exit)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label loop = vm_prog_label(p), above = vm_prog_label(p);

	exit_anchor(t, false, no_state);
	vm_prog_ld(p, 4, 1, R_B, R_A, d->jit_id_off, no_state);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_B, d->exit_state, in_exit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_B, d->exit_gc_state, no_state);
	vm_prog_bind(p, in_exit);
	desc3_ref(t, R_FRAME, R_A, d->jit_top_off, no_state);
	desc3_ref(t, R_STATE, R_A, d->jit_state_off, no_state);
	sane(t, no_state);
	/*
	 * The activation's AR is the first of the state's chain above the
	 * handler's frame: a protected call the exit makes (lj_vm_cpcall)
	 * links one of its own below it.
	 */
	vm_prog_ld(p, 8, 0, R_AR, R_STATE, d->state_ar_off, no_state);
	mov_k(t, R_B, 0);
	vm_prog_bind(p, loop);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_AR, ~(int32_t)d->ar_mask);
	vm_prog_jmp(p, VMSTACK_VM4_JGT, R_AR, R_C, above);
	vm_prog_jmp_k(p, VMSTACK_VM4_JGE_K, R_B, (int32_t)d->ar_chain_max, no_state);
	vm_prog_ld(p, 8, 0, R_AR, R_AR, d->ar_prev_off, no_state);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_B, 1);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, above);
	mov_k(t, R_PC, 0);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_FRAME, 0, from_state);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_FRAME, d->top_adj);
	mov_k(t, R_NEXT, 0);
	vm_prog_ja(p, t->walk);
}

/*
 * A native activation: the state, the walk from the top register where
 * there is one, else (or when that walk fails) from the state's top.
 * @reg_end: where the register's walk ends.
 */
static void native(struct desc3_tr *t, vm_label reg_end)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label empty = vm_prog_label(p), no_state = vm_prog_label(p);
	vm_label from_state = vm_prog_label(p), reg = vm_prog_label(p);
	vm_label exit_entry = vm_prog_label(p), in_exit = vm_prog_label(p);
	bool has_state = d->state_from != VMSTACK_VM_STATE_NONE;
	bool entry = (d->flags & VMSTACK_VM_F_JIT_EXIT) && d->exit_entry_end;

	vm_prog_alu(p, VMSTACK_VM4_MOV, R_BITS, 4);
	vm_prog_alu_k(p, VMSTACK_VM4_LSH_K, R_BITS, 9);		/* B_LEAF */
	vm_prog_alu(p, VMSTACK_VM4_MOV, R_FRAME, 2);		/* bp */
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_AR, d->ar_off);	/* sp + ar_off */
	/*
	 * Kept for trace_exit: at the sampled frame state() may move R_AR
	 * (to the leaf's AR); STATE_AR's code, which F_JIT_EXIT requires
	 * (desc3_check.c), leaves R_C alone.
	 */
	if (d->flags & VMSTACK_VM_F_JIT_EXIT)
		vm_prog_alu(p, VMSTACK_VM4_MOV, R_C, R_AR);
	/*
	 * r3, the pc, where compiled code returns to the interpreter (desc3.h):
	 * in [start, end) if end - 1 - pc, unsigned, is below end - start.
	 * None of those instructions calls: no caller's return address is
	 * there, only the sampled frame's pc.
	 */
	if (entry) {
		vm_prog_mov64(p, R_A, d->exit_entry_end - 1);
		vm_prog_alu(p, VMSTACK_VM4_SUB, R_A, R_B);
		vm_prog_jmp_k(p, VMSTACK_VM4_JLT_K, R_A,
			      (int32_t)(d->exit_entry_end - d->exit_entry_start), exit_entry);
	}
	state(t, empty, no_state);
	mov_k(t, R_PC, 0);
	if (d->top_reg) {
		if (d->top_reg != VMSTACK_VM_REG_RBP) {
			vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, R_BITS, B_LEAF, reg);
			vm_prog_ja(p, from_state);
			vm_prog_bind(p, reg);
			vm_prog_ldreg(p, R_FRAME, d->top_reg);
		}
		vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_FRAME, d->top_adj);
		pc_from_reg(t);
		mov_k(t, R_NEXT, 0);
		if (has_state)
			vm_prog_insn(p, VMSTACK_VM4_MARK, 0, 0, 0);
		vm_prog_alu_k(p, VMSTACK_VM4_OR_K, R_BITS, B_REG);
		vm_prog_ja(p, t->walk);
	}
	vm_prog_bind(p, from_state);
	if (has_state)
		walk_from_state(t);
	vm_prog_bind(p, reg_end);
	if (d->top_reg && has_state) {
		vm_label shown = vm_prog_label(p);

		vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, R_I, 0, shown);
		vm_prog_insn(p, VMSTACK_VM4_UNDO, 0, 0, 0);
		vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_BITS, ~B_REG);
		/* F_PC_CHECK: the PC register still tells a frame being left. */
		if (d->flags & VMSTACK_VM_F_PC_CHECK)
			pc_from_reg(t);
		else
			mov_k(t, R_PC, 0);
		vm_prog_ja(p, from_state);
		vm_prog_bind(p, shown);
	}
	vm_prog_ja(p, t->exit);
	/* No VM frames of its own: as 3.6, R_NEXT stays as it was. */
	vm_prog_bind(p, empty);
	exit_with(t, VMSTACK_VM4_X_EMPTY);
	/*
	 * There sp is not the AR yet, the anchor is in its register and
	 * vmstate may still be the trace's number: the pc proves the exit,
	 * the state's checks the rest.
	 */
	if (entry) {
		vm_prog_bind(p, exit_entry);
		exit_anchor(t, true, no_state);
		vm_prog_ja(p, in_exit);
	}
	vm_prog_bind(p, no_state);
	if (d->flags & VMSTACK_VM_F_JIT_EXIT) {
		vm_label cut = vm_prog_label(p);

		trace_exit(t, cut, from_state, in_exit);
		vm_prog_bind(p, cut);
	}
	mov_k(t, R_NEXT, 0);
	exit_with(t, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/*
 * Compiled code (r0 AT_JIT, r1 the anchor; the module showed the code
 * object): the state and top frame the VM keeps for compiled code, then
 * the AR the state links (r1 at the exit; 0: the stack ends).
 */
static void jit(struct desc3_tr *t, vm_label at_jit, vm_label jit_end)
{
	const struct vmstack_vm_desc *d = t->d;
	struct vm_prog *p = &t->p;
	vm_label no_state = vm_prog_label(p), no_top = vm_prog_label(p);
	vm_label no_ar = vm_prog_label(p);

	vm_prog_bind(p, at_jit);
	mov_k(t, R_NEXT, 0);
	desc3_ref(t, R_STATE, R_AR, d->jit_state_off, no_state);
	sane(t, no_state);
	desc3_ref(t, R_FRAME, R_AR, d->jit_top_off, no_top);
	vm_prog_alu_k(p, VMSTACK_VM4_ADD_K, R_FRAME, d->top_adj);
	mov_k(t, R_PC, 0);
	mov_k(t, R_BITS, B_JIT);
	vm_prog_ja(p, t->walk);
	vm_prog_bind(p, no_top);
	mov_k(t, R_I, VMSTACK_VMB_READ);
	vm_prog_bind(p, jit_end);
	mov_k(t, R_AR, 0);
	vm_prog_ld(p, 8, 0, R_AR, R_STATE, d->state_ar_off, no_ar);
	vm_prog_alu_k(p, VMSTACK_VM4_AND_K, R_AR, ~(int32_t)d->ar_mask);
	vm_prog_ja(p, t->exit);
	/* Unreadable: the stack ends (R_AR 0), cut if the walk was not. */
	vm_prog_bind(p, no_ar);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, R_I, 0, t->exit);
	mov_k(t, R_I, VMSTACK_VMB_READ);
	vm_prog_ja(p, t->exit);
	vm_prog_bind(p, no_state);
	mov_k(t, R_AR, 0);
	exit_with(t, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/* The fixed part's fields: entry range, the way back, compiled code. */
static void fields(const struct vmstack_vm_desc *d, struct vmstack_vm_desc4 *o)
{
	o->size = sizeof(*o);
	o->ranges[0].start = d->code_start;
	o->ranges[0].end = d->code_end;
	/* 3.6's max_frames bounds each walk in the program; this only the run. */
	o->max_frames = VMSTACK_VM_MAX_FRAMES;
	o->caller_bp_off = d->caller_bp_off;
	o->caller_ra_off = d->caller_ra_off;
	o->caller_sp_off = d->caller_sp_off;
	if (d->flags & VMSTACK_VM_F_NATIVE_STEP)
		o->flags |= VMSTACK_VM4_F_NATIVE_STEP;
	if (!(d->flags & VMSTACK_VM_F_JIT))
		return;
	o->flags |= VMSTACK_VM4_F_JIT;
	if (d->flags & VMSTACK_VM_F_REF32)
		o->flags |= VMSTACK_VM4_F_JIT_REF32;
	o->jit_reg = d->jit_reg;
	o->jit_anchor_adj = d->jit_anchor_adj;
	o->jit_anchor_ptr = d->jit_anchor_ptr;
	o->jit_mask = d->func_mask;
	o->jit_id_off = d->jit_id_off;
	o->jit_table_off = d->jit_table_off;
	o->jit_count_off = d->jit_count_off;
	o->jit_code_off = d->jit_code_off;
	o->jit_size_off = d->jit_size_off;
	if (d->flags & VMSTACK_VM_F_JIT_AREAS) {
		o->flags |= VMSTACK_VM4_F_JIT_AREAS;
		o->jit_area_off = d->jit_area_off;
		o->jit_areas_max = d->jit_areas_max;
	}
	if (!(d->flags & VMSTACK_VM_F_JIT_NEAR))
		return;
	o->flags |= VMSTACK_VM4_F_JIT_NEAR;
	o->jit_link_off = d->jit_link_off;
	o->jit_root_off = d->jit_root_off;
	o->jit_side_off = d->jit_side_off;
	o->jit_near_max = d->jit_near_max;
}

const char *vmstack_desc3_prog(const struct vmstack_vm_desc *d,
			       struct vmstack_vm_desc4 *out)
{
	struct desc3_tr t;
	const char *err = vmstack_desc3_check(d);
	vm_label at_jit, jit_end, reg_end;
	bool has_jit = d->flags & VMSTACK_VM_F_JIT;

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	vm_prog_init(&t.p);
	t.d = d;
	t.delta = d->link == VMSTACK_VM_LINK_TAGGED_DELTA;
	t.ref32 = d->flags & VMSTACK_VM_F_REF32;
	t.spare = d->state_from != VMSTACK_VM_STATE_THREAD;
	t.walk = vm_prog_label(&t.p);
	t.walk_end = vm_prog_label(&t.p);
	at_jit = vm_prog_label(&t.p);
	jit_end = vm_prog_label(&t.p);
	reg_end = vm_prog_label(&t.p);
	t.exit = vm_prog_label(&t.p);

	if (has_jit)
		vm_prog_jmp_k(&t.p, VMSTACK_VM4_JEQ_K, 0, VMSTACK_VM4_AT_JIT, at_jit);
	native(&t, reg_end);
	desc3_walk(&t);
	/* Where a walk ends: which walk it was says what follows. */
	vm_prog_bind(&t.p, t.walk_end);
	if (has_jit)
		vm_prog_jmp_k(&t.p, VMSTACK_VM4_JSET_K, R_BITS, B_JIT, jit_end);
	if (d->top_reg)
		vm_prog_jmp_k(&t.p, VMSTACK_VM4_JSET_K, R_BITS, B_REG, reg_end);
	vm_prog_bind(&t.p, t.exit);
	/*
	 * F_VM_STATE: the first walk that started showed the state; a cut one
	 * ends at no bottom (R_NSTATE still 0), and the outer activation's
	 * walk would show it again, below this one's frames: 1, no state, and
	 * R_NEXT 0 after a cut, so the outer walk reads its own top.
	 */
	if (d->flags & VMSTACK_VM_F_VM_STATE) {
		vm_label seen = vm_prog_label(&t.p);

		vm_prog_jmp_k(&t.p, VMSTACK_VM4_JNE_K, R_NSTATE, 0, seen);
		mov_k(&t, R_NSTATE, 1);
		vm_prog_bind(&t.p, seen);
	}
	exit_by_result(&t);
	if (has_jit)
		jit(&t, at_jit, jit_end);
	fields(d, out);
	return vm_prog_end(&t.p, out);
}
