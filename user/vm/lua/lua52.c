// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.2 on x86-64 (Debian's lua5.2, which links its Lua statically):
 * find its interpreter loop, write the ABI 4 program that walks its
 * CallInfos, name its functions.
 *
 * As in 5.3, Lua calls Lua without recursing in C and the CallInfos are
 * a list linked by previous; but 5.2 marks the other end: a CallInfo the
 * running luaV_execute entered by a Lua call is CIST_REENTRY, and the one
 * it was entered with (from C, a metamethod, a coroutine's resume) is
 * not. Debian's GCC build keeps its CallInfo in r13, which the unwind
 * rows do not track, and L in rbp, which they do: so the program starts
 * from L->ci, passes the C functions' CallInfos above this activation's
 * (the C function the loop is calling, and what it called), and shows
 * the Lua ones down to the first not marked; an outer activation of the
 * same L goes on where the inner one stopped (r8). A build whose loop
 * does not keep L in rbp, checked at its call (L->ci read through rbp
 * and marked CIST_REENTRY), is refused, not guessed at.
 *
 * Not shown: the few instructions of OP_CLOSURE during which the loop
 * lends rbp to the enclosing closure's upvalues (a sample in
 * luaF_findupval then: its L is no lua_State, the frame stays native).
 */
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "file.h"
#include "vm/lua/lua52.h"
#include "vm/lua/lua_code.h"
#include "vm/lua/lua_find.h"
#include "vm/lua/lua_version.h"
#include "vm/runtime.h"

/*
 * Lua 5.2.4 (lstate.h 2.82.1.1, lobject.h, lopcodes.h as at tag v5.2.3
 * of lua/lua: 5.2.4 changed no struct), offsets as GCC lays them out on
 * x86-64 (no NaN trick there: luaconf.h); L->ci, callstatus and
 * CIST_REENTRY also read in Debian's lua5.2 5.2.4-3 (the loop's OP_CALL:
 * "mov 0x20(%rbp),%r13; orb $0x4,0x22(%r13)").
 */
const struct lua52_layout vmstack_lua524 = {
	.version = "Lua 5.2.4",
	.l_tt = 0x08,
	.l_ci = 0x20,
	.tthread = 8,			/* LUA_TTHREAD */
	.ci_func = 0x00,		/* StkId: the function's stack slot */
	.ci_previous = 0x10,
	.ci_savedpc = 0x38,		/* u.l.savedpc: past the current instruction */
	.ci_callstatus = 0x22,		/* lu_byte */
	.cist_lua = 0x01,
	.cist_hooked = 0x02,
	.cist_reentry = 0x04,
	.cist_tail = 0x40,
	.tv_tag = 0x08,			/* int tt_ */
	.tag_lcl = 0x46,		/* LUA_TLCL 6 | collectable 0x40 */
	.cl_p = 0x18,
	.tproto = 9,			/* LUA_TPROTO = LUA_NUMTAGS */
	.proto = {
		.p_linedefined = 0x68,
		.p_source = 0x48,	/* TString * */
		.gc_tt = 0x08,
		.str_tag = 4,		/* LUA_TSTRING: short 0x04, long 0x14 */
		.shr_tt = 0,		/* both keep tsv.len */
		.ts_len = 0x10,
		.ts_contents = 0x18,	/* sizeof(TString) */
	},
};

static const struct lua52_layout *const lua52_layouts[] = { &vmstack_lua524 };

/*
 * r3: L, then a closure and its Proto; r8: the CallInfo; r9: the L r8
 * is of; r10: 1 once r8, r9 hold; r7 (0 at the start): frames shown.
 */
void vmstack_lua52_prog(const struct lua52_layout *L, struct vm_prog *p)
{
	vm_label fresh, skip, loop, tail, emit, empty, bad, nostate;

	vm_prog_init(p);
	fresh = vm_prog_label(p), skip = vm_prog_label(p), loop = vm_prog_label(p);
	tail = vm_prog_label(p), emit = vm_prog_label(p), empty = vm_prog_label(p);
	bad = vm_prog_label(p), nostate = vm_prog_label(p);
	/* This frame's L, a lua_State by its type byte. */
	vm_prog_insn(p, VMSTACK_VM4_MOV, 3, 2, 0);
	vm_prog_ld(p, 1, 0, 4, 3, L->l_tt, nostate);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 4, L->tthread, nostate);
	/* The same L as the inner activation: go on where it stopped. */
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 10, 0, fresh);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 9, 3, skip);
	vm_prog_bind(p, fresh);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 9, 3, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	vm_prog_ld(p, 8, 0, 8, 9, L->l_ci, nostate);
	/* C functions' CallInfos above this activation's: passed. */
	vm_prog_bind(p, skip);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 8, 0, empty);	/* below base_ci */
	vm_prog_ld(p, 1, 0, 5, 8, L->ci_callstatus, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_lua, loop);
	vm_prog_ld(p, 8, 0, 8, 8, L->ci_previous, bad);
	vm_prog_ja(p, skip);
	/* Each a Lua function's, down to the one this loop was entered with. */
	vm_prog_bind(p, loop);
	vm_prog_ld(p, 8, 0, 3, 8, L->ci_func, bad);
	vm_prog_ld(p, 1, 0, 4, 3, L->tv_tag, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 4, L->tag_lcl, bad);
	vm_prog_ld(p, 8, 0, 3, 3, 0, bad);	/* value_.gc: the LClosure */
	vm_prog_ld(p, 8, 0, 3, 3, L->cl_p, bad);
	vm_prog_ld(p, 1, 0, 4, 3, L->proto.gc_tt, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 4, L->tproto, bad);
	vm_prog_ld(p, 8, 0, 4, 8, L->ci_savedpc, bad);
	/* A tail-called function: its pc marked (VMSTACK_LUA_PC_TAIL). */
	vm_prog_ld(p, 1, 0, 5, 8, L->ci_callstatus, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_tail, tail);
	/*
	 * Not reentered (5.2 marks a Lua call in the same loop), the loop's
	 * first, its previous CallInfo a Lua function's and not in a hook
	 * (a hook's function is called from the hook, not for the
	 * instruction): VMSTACK_LUA_PC_FROM_LUA.
	 */
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_reentry, emit);
	vm_prog_ld(p, 8, 0, 6, 8, L->ci_previous, emit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 6, 0, emit);
	vm_prog_ld(p, 1, 0, 6, 6, L->ci_callstatus, emit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 6, L->cist_hooked, emit);
	vm_prog_insn(p, VMSTACK_VM4_AND_K, 6, 0, L->cist_lua);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 6, 0, emit);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_FROM_LUA);
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 7, 0, 1);
	vm_prog_ld(p, 8, 0, 8, 8, L->ci_previous, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_reentry, loop);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(p, tail);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_TAIL);
	vm_prog_ja(p, emit);
	vm_prog_bind(p, empty);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_EMPTY);
	vm_prog_bind(p, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 7, 0, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(p, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/*
 * luaV_execute(L)'s first instructions, as GCC emits them: L moved from
 * rdi to rbp, and L->ci read from rdi (into the register it keeps ci in).
 * luaD_precall, the other callee of luaD_call that takes L, keeps it in rbx.
 */
static int lua52_loop_test(const unsigned char *code, size_t len, void *arg)
{
	const struct lua52_layout *L = arg;
	static const unsigned char rdi_to_rbp[] = { 0x48, 0x89, 0xfd };
	size_t i;

	if (!vmstack_lua_has(code, len, rdi_to_rbp, sizeof(rdi_to_rbp)))
		return -1;
	for (i = 0; i + 4 <= len; i++)	/* mov l_ci(%rdi),%r64 */
		if ((code[i] == 0x48 || code[i] == 0x4c) && code[i + 1] == 0x8b &&
		    (code[i + 2] & 0xc7) == 0x47 && code[i + 3] == (unsigned char)L->l_ci)
			return 0;
	return -1;
}

/*
 * Does the loop's code [@code, +@len) mark a callee CIST_REENTRY through
 * L in rbp: "mov l_ci(%rbp),%reg" then "orb $CIST_REENTRY,callstatus(%reg)"
 * (OP_CALL's ci = L->ci; ci->callstatus |= CIST_REENTRY)? Then L is in
 * rbp where the loop calls.
 */
static int marks_reentry_from_rbp(const struct lua52_layout *L, const unsigned char *code,
				  size_t len)
{
	size_t i;

	for (i = 0; i + 10 <= len; i++) {
		const unsigned char *c = code + i;
		unsigned int reg, rm;

		if ((c[0] != 0x48 && c[0] != 0x4c) || c[1] != 0x8b || (c[2] & 0xc7) != 0x45 ||
		    c[3] != (unsigned char)L->l_ci)
			continue;
		reg = (c[2] >> 3) & 7;
		rm = 0x48 | reg;	/* mod 01, /1 (or), rm reg: disp8 */
		if (reg == 4)
			continue;	/* rsp, r12 need a SIB byte */
		if (c[0] == 0x4c ? (c[4] == 0x41 && c[5] == 0x80 && c[6] == rm &&
				    c[7] == (unsigned char)L->ci_callstatus &&
				    c[8] == L->cist_reentry)
				 : (c[4] == 0x80 && c[5] == rm &&
				    c[6] == (unsigned char)L->ci_callstatus &&
				    c[7] == L->cist_reentry))
			return 1;
	}
	return 0;
}

static int loop_keeps_l(Elf *elf, const struct lua52_layout *L, uint64_t start, uint64_t end)
{
	unsigned char *code;
	int ok;

	if (end <= start || end - start > (1 << 20))
		return 0;
	code = malloc(end - start);
	ok = code && !vmstack_elf_read(elf, start, code, end - start) &&
	     marks_reentry_from_rbp(L, code, end - start);
	free(code);
	return ok;
}

static enum vmstack_detect lua52_detect(const struct vmstack_map *m, int pid,
					struct vmstack_vm_found *f, char *why, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	const struct lua52_layout *L = NULL;
	static struct vm_prog p;	/* 6 KB: not on the stack */
	uint64_t lo, start, end;
	char version[32];
	size_t i;

	if (!elf || vmstack_lua_version(elf, version, sizeof(version)) ||
	    strncmp(version, "Lua 5.2", 7) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	for (i = 0; i < sizeof(lua52_layouts) / sizeof(lua52_layouts[0]); i++)
		if (!strcmp(lua52_layouts[i]->version, version))
			L = lua52_layouts[i];
	if (!L) {
		snprintf(why, len, "%s, a version vmstack does not know (it knows 5.2.4)",
			 version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (vmstack_lua_find_loop(elf, "lua_callk", 2, lua52_loop_test, (void *)L, &start,
				  &end, NULL) ||
	    !loop_keeps_l(elf, L, start, end)) {
		snprintf(why, len, "no luaV_execute found below lua_callk that keeps L in rbp (%s's layout)",
			 L->version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (start < lo || end > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	vmstack_lua52_prog(L, &p);
	return vmstack_lua_found(m, pid, elf, lo, start, end, &p, &vmstack_lua52_code,
				 L->version, f, why, len);
}

const struct vmstack_runtime vmstack_rt_lua52 = {
	.name = "lua5.2",
	.alias = "lua52",
	.label = "Lua 5.2",
	.help = "Lua 5.2 in any mapped file of a known version (5.2.4: Debian's lua5.2)",
	.detect = lua52_detect,
	.namer = vmstack_lua_frame_name,
	.site_namer = vmstack_lua_site_name,
	.across_mask = VMSTACK_LUA_ACROSS_MASK,
	.across_bits = VMSTACK_LUA_PC_FROM_LUA,
	.names_by_pc = true,
};
