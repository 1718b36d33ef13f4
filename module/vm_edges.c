// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's hand-written entry from C and return to C, sampled part-way.
 *
 * An interpreter written in assembly (LuaJIT) describes its whole code with
 * one unwind rule, right in its body and wrong in the few instructions that
 * build its frame and take it down, where its state does not say where the
 * frame is either (the frame is not, or no longer, linked). The code there
 * says it, exactly, at the sampled frame (whose pc is an instruction about
 * to run; a caller's is a return address):
 *
 * - the return (LuaJIT's lj_vm_leave_unw, where every lua_call and
 *   lua_pcall returns: add rsp, 0x28; pop r14; pop r15; pop rbx; pop rbp;
 *   ret): when the pc starts a run of an optional "add rsp, imm", pops and
 *   a ret, nothing else can happen before the ret, so the return address
 *   is at sp plus the add plus 8 a pop, and rbp is what its pop (if one is
 *   left) reads;
 * - the entry (lj_vm_call, lj_vm_pcall, lj_vm_resume, lj_vm_cpcall: four
 *   pushes, then sub rsp, 0x28; lua_call reaches lj_vm_call by a tail
 *   jump): when the pc is a push or that sub, the pushes and the sub still
 *   to run, read forward, must build the frame the descriptor says the
 *   entry saves (its AR the final sp, the caller's sp at AR +
 *   caller_sp_off, the return address below it). Then the pushes done
 *   are known, and the return address is where they left it; rbp is live
 *   while its push is still to run, else in the slot the descriptor names.
 *
 * The entry's return address must lie in code with unwind rows (the C
 * caller's): with frame pointers only the stack goes on as before.
 * Bounded: one read of the code at the pc, at most three reads of the
 * stack, loops bounded by the bytes read.
 */
#include "vm_edges.h"
#include "vm_walk.h"

/* At most an add (7 bytes), 4 two-byte pops and a ret, with room to spare. */
#define EDGE_BYTES	16
/* Pushes an entry makes before its sub rsp: LuaJIT's callee-saved four. */
#define ENTRY_PUSHES	4

/* push r64 (50+r, or 41 50+r): its length at @c, 0 if it is none. */
static unsigned int push_len(const u8 *c, unsigned int n)
{
	if (n >= 1 && c[0] >= 0x50 && c[0] <= 0x57 && c[0] != 0x54)
		return 1;
	if (n >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57)
		return 2;
	return 0;
}

/*
 * add rsp (@modrm c4) or sub rsp (ec), imm8 (48 83 modrm ib) or imm32
 * (48 81 modrm id), at @c with EDGE_BYTES - 7 or more bytes left: its
 * length, and the immediate in *@imm; 0 if it is none.
 */
static unsigned int rsp_imm(const u8 *c, u8 modrm, long *imm)
{
	if (c[0] != 0x48 || c[2] != modrm)
		return 0;
	if (c[1] == 0x83) {
		*imm = (s8)c[3];
		return 4;
	}
	if (c[1] == 0x81) {
		*imm = (s32)(c[3] | c[4] << 8 | c[5] << 16 | (u32)c[6] << 24);
		return 7;
	}
	return 0;
}

/* The return: [add rsp, imm] pop* ret at the pc, in @code. */
static bool vm_exit_edge(struct vmstack_walk *w, const struct vmstack_user_regs *r,
			 const u8 *code, struct vmstack_user_regs *caller)
{
	unsigned long sp = r->sp, bp = r->bp, ra;
	long add = 0;
	unsigned int i = rsp_imm(code, 0xc4, &add);

	if (add < 0 || (add & 7) || add > 4096)
		return false;
	sp += add;
	/* pop r64 (58+r, or 41 58+r for r8-r15) until the ret (c3). */
	while (i < EDGE_BYTES && code[i] != 0xc3) {
		bool rex_b = code[i] == 0x41;
		u8 op;

		if (rex_b && ++i == EDGE_BYTES)
			return false;
		op = code[i++];
		/* pop rsp (5c) takes no frame down. */
		if (op < 0x58 || op > 0x5f || (op == 0x5c && !rex_b))
			return false;
		if (op == 0x5d && !rex_b && !vmstack_vm_read(w, &bp, sp, sizeof(bp)))
			return false;
		sp += 8;
	}
	if (i == EDGE_BYTES || !vmstack_vm_read(w, &ra, sp, sizeof(ra)))
		return false;
	caller->ip = ra;
	caller->sp = sp + 8;
	caller->bp = bp;
	return true;
}

/*
 * The entry, at a push or its sub rsp: the pushes and the sub still to
 * run (read forward from the pc) and the frame @d says the entry saves
 * (its AR the entry's final sp, the caller's sp at AR + caller_sp_off,
 * the return address just below it) say how many pushes are done, and so
 * where the return address is. A run that builds no such frame is none.
 */
static bool vm_entry_edge(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
			  const struct vmstack_user_regs *r, const u8 *code,
			  struct vmstack_user_regs *caller)
{
	unsigned long ar, slot, ra, bp = r->bp;
	unsigned int i = 0, k = 0, len;
	bool bp_later = false, hit;
	long sub;

	while ((len = push_len(code + i, EDGE_BYTES - i))) {
		bp_later |= len == 1 && code[i] == 0x55;
		i += len;
		if (++k > ENTRY_PUSHES)
			return false;
	}
	if (i + 7 > EDGE_BYTES || !rsp_imm(code + i, 0xec, &sub))
		return false;
	if (sub <= 0 || (sub & 7) || sub > 4096 || d->caller_ra_off != d->caller_sp_off - 8)
		return false;
	ar = r->sp - 8UL * k - sub;
	slot = ar + d->caller_ra_off;
	/* At most ENTRY_PUSHES done: the return address is that far from sp. */
	if (slot < r->sp || slot - r->sp > 8UL * ENTRY_PUSHES || (slot - r->sp) & 7)
		return false;
	/*
	 * And the value there lies in code with unwind rows (the C caller's):
	 * with frame pointers only nothing is tried.
	 */
	if (!vmstack_vm_read(w, &ra, slot, sizeof(ra)) || !ra ||
	    !vmstack_uw_lookup_cached(w->rules, w->uw_cache, ra - 1, &hit))
		return false;
	/* rbp: live until its push, then in its slot among the pushes done. */
	if (!bp_later) {
		unsigned long at = ar + d->caller_bp_off;

		if (at < r->sp || at >= slot || !vmstack_vm_read(w, &bp, at, sizeof(bp)))
			return false;
	}
	caller->ip = ra;
	caller->sp = slot + 8;
	caller->bp = bp;
	return true;
}

bool vmstack_vm_edge(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
		     const struct vmstack_user_regs *r, struct vmstack_user_regs *caller)
{
	u8 code[EDGE_BYTES] = { 0 };
	unsigned long n = 4096 - (r->ip & 4095);
	long sub;

	/*
	 * Not past the pc's page: that page is being run, the next one may be
	 * absent, and a read that faults costs the sample's VM fault budget.
	 * An edge split by a page boundary reads as none (0 is no pop).
	 */
	if (!vmstack_vm_read(w, code, r->ip, n < sizeof(code) ? n : sizeof(code)))
		return false;
	if (push_len(code, sizeof(code)) || rsp_imm(code, 0xec, &sub))
		return vm_entry_edge(w, d, r, code, caller);
	return vm_exit_edge(w, r, code, caller);
}
