// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's hand-written return to its native caller, sampled part-way.
 *
 * An interpreter written in assembly (LuaJIT) describes its whole code with
 * one unwind rule, right in its body and wrong in the few instructions that
 * take its frame down: LuaJIT's lj_vm_leave_unw, where every lua_call and
 * lua_pcall returns to C, is "add rsp, 0x28; pop r14; pop r15; pop rbx;
 * pop rbp; ret", and by then the activation has no VM frames and no state
 * that says where its frame is. The instructions themselves say it: when
 * the sampled pc starts a run of an optional "add rsp, imm", pops and a
 * ret, nothing else can happen before the ret, so the return address is at
 * sp plus the add plus 8 a pop, and rbp is what its pop (if any) reads.
 * Only at the sampled frame (a caller's pc is a return address, not an
 * instruction about to run) and only a straight run: one read of the code,
 * a loop bounded by its bytes.
 */
#include "vm_epilogue.h"
#include "vm_walk.h"

/* At most an add (7 bytes), 4 two-byte pops and a ret, with room to spare. */
#define EPILOGUE_BYTES	16

bool vmstack_vm_epilogue(struct vmstack_walk *w, const struct vmstack_user_regs *r,
			 struct vmstack_user_regs *caller)
{
	unsigned long sp = r->sp, bp = r->bp, ra;
	u8 code[EPILOGUE_BYTES] = { 0 };
	unsigned int i = 0;
	long add = 0;

	/*
	 * Not past the pc's page: that page is being run, the next one may be
	 * absent, and a read that faults costs the sample's VM fault budget.
	 * An epilogue split by a page boundary reads as none (0 is no pop).
	 */
	unsigned long n = 4096 - (r->ip & 4095);

	if (!vmstack_vm_read(w, code, r->ip, n < sizeof(code) ? n : sizeof(code)))
		return false;
	/* add rsp, imm8 (48 83 c4 ib) or imm32 (48 81 c4 id). */
	if (code[0] == 0x48 && code[2] == 0xc4 && (code[1] == 0x83 || code[1] == 0x81)) {
		if (code[1] == 0x83) {
			add = (s8)code[3];
			i = 4;
		} else {
			add = (s32)(code[3] | code[4] << 8 | code[5] << 16 | (u32)code[6] << 24);
			i = 7;
		}
		if (add < 0 || (add & 7) || add > 4096)
			return false;
	}
	sp += add;
	/* pop r64 (58+r, or 41 58+r for r8-r15) until the ret (c3). */
	while (i < sizeof(code) && code[i] != 0xc3) {
		bool rex_b = code[i] == 0x41;
		u8 op;

		if (rex_b && ++i == sizeof(code))
			return false;
		op = code[i++];
		/* pop rsp (5c) takes no frame down. */
		if (op < 0x58 || op > 0x5f || (op == 0x5c && !rex_b))
			return false;
		if (op == 0x5d && !rex_b && !vmstack_vm_read(w, &bp, sp, sizeof(bp)))
			return false;
		sp += 8;
	}
	if (i == sizeof(code) || !vmstack_vm_read(w, &ra, sp, sizeof(ra)))
		return false;
	caller->ip = ra;
	caller->sp = sp + 8;
	caller->bp = bp;
	return true;
}
