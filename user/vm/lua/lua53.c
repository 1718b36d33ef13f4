// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.3 on x86-64 (Debian's lua5.3 and liblua5.3.so.0, which HAProxy
 * links): find its interpreter loop, write the ABI 4 program that walks
 * its CallInfos, name its functions.
 *
 * As in 5.4, Lua calls Lua without recursing in C: one luaV_execute runs
 * a chain of CallInfos linked by previous, down to the one it was entered
 * with, which it marks CIST_FRESH. Debian's GCC build loads L->ci into
 * rbp first thing and keeps it there (it reloads it from L->ci after each
 * call, and a call of the loop's is where an outer activation's frame
 * stands), a callee-saved register the native unwinder recovers in every
 * frame: so each luaV_execute frame gives its own chain, coroutines
 * included, without the lua_State. A build whose loop does not begin by
 * loading L->ci into rbp and marking it fresh, bytes checked below from
 * the layout's offsets, is refused, not guessed at.
 *
 * luaV_execute is not exported: lua_find.h finds it below lua_callk.
 *
 * Not shown: a coroutine resumed after yielding from nested Lua calls
 * (HAProxy's forced yield, from a count hook) runs each pending frame in
 * a luaV_execute of its own, called in turn by lua_resume's unroll; the
 * running one is fresh, and its Lua callers wait in no native frame.
 */
#include <string.h>

#include "file.h"
#include "vm/lua/lua53.h"
#include "vm/lua/lua_code.h"
#include "vm/lua/lua_find.h"
#include "vm/lua/lua_version.h"
#include "vm/runtime.h"

/*
 * Lua 5.3.6 (tag v5.3.6: lstate.h, lobject.h, lua.h), the offsets as GCC
 * lays them out on x86-64; each bold one in runtime-layouts.md also seen
 * in Debian's liblua5.3.so.0 5.3.6-2 (lua_getinfo, lua_callk, the loop).
 */
const struct lua53_layout vmstack_lua536 = {
	.version = "Lua 5.3.6",
	.l_ci = 0x20,
	.ci_func = 0x00,		/* StkId: the function's stack slot */
	.ci_previous = 0x10,
	.ci_savedpc = 0x28,		/* u.l.savedpc: past the current instruction */
	.ci_callstatus = 0x42,		/* unsigned short */
	.cist_fresh = 0x08,
	.cist_tail = 0x20,
	.cist_hooked = 0x04,
	.cist_fin = 0x100,
	.tv_tag = 0x08,
	.tag_lcl = 0x46,		/* LUA_TLCL 6 | collectable 0x40 */
	.cl_p = 0x18,
	.tproto = 9,			/* LUA_TPROTO = LUA_NUMTAGS */
	.proto = {
		.p_linedefined = 0x28,
		.p_source = 0x68,	/* TString * */
		.gc_tt = 0x08,
		.str_tag = 4,		/* LUA_TSTRING */
		.shr_tt = 4,		/* LUA_TSHRSTR; LUA_TLNGSTR is 0x14 */
		.ts_shrlen = 0x0b,
		.ts_len = 0x10,		/* u.lnglen */
		.ts_contents = 0x18,	/* sizeof(UTString) */
	},
};

static const struct lua53_layout *const lua53_layouts[] = { &vmstack_lua536 };

void vmstack_lua53_prog(const struct lua53_layout *L, struct vm_prog *p)
{
	vm_label loop, fresh, tail, emit, bad, nostate, from;

	vm_prog_init(p);
	loop = vm_prog_label(p), fresh = vm_prog_label(p), bad = vm_prog_label(p);
	nostate = vm_prog_label(p), tail = vm_prog_label(p), emit = vm_prog_label(p);
	from = vm_prog_label(p);
	/*
	 * r8: the CallInfo; every one down to the fresh one is a Lua
	 * function's. r7 (0 at the start): frames shown so far. A first
	 * CallInfo that is none (the loop's prologue, before rbp holds ci)
	 * leaves the native frame as it is.
	 */
	vm_prog_insn(p, VMSTACK_VM4_MOV, 8, 2, 0);
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
	vm_prog_ld(p, 2, 0, 5, 8, L->ci_callstatus, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_tail, tail);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_fresh, from);
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 7, 0, 1);
	vm_prog_ld(p, 2, 0, 4, 8, L->ci_callstatus, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 4, L->cist_fresh, fresh);
	vm_prog_ld(p, 8, 0, 8, 8, L->ci_previous, bad);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, fresh);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(p, tail);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_TAIL);
	vm_prog_ja(p, emit);
	/*
	 * Fresh, its previous CallInfo a Lua closure's, neither in a hook nor
	 * running a finalizer (their functions are called from the hook, from
	 * the collector, not for the instruction): VMSTACK_LUA_PC_FROM_LUA.
	 */
	vm_prog_bind(p, from);
	vm_prog_ld(p, 8, 0, 6, 8, L->ci_previous, emit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 6, 0, emit);
	vm_prog_ld(p, 2, 0, 5, 6, L->ci_callstatus, emit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JSET_K, 5, L->cist_hooked | L->cist_fin, emit);
	vm_prog_ld(p, 8, 0, 6, 6, L->ci_func, emit);
	vm_prog_ld(p, 1, 0, 6, 6, L->tv_tag, emit);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 6, L->tag_lcl, emit);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_FROM_LUA);
	vm_prog_ja(p, emit);
	vm_prog_bind(p, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 7, 0, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(p, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/*
 * luaV_execute's first instructions, as Debian's GCC emits them:
 * "mov L_ci(%rdi),%rbp" (ci = L->ci, kept in rbp) and "orw $CIST_FRESH,
 * callstatus(%rbp)" (ci->callstatus |= CIST_FRESH).
 */
static int lua53_loop_test(const unsigned char *code, size_t len, void *arg)
{
	const struct lua53_layout *L = arg;
	const unsigned char ci_to_rbp[] = { 0x48, 0x8b, 0x6f, (unsigned char)L->l_ci };
	const unsigned char fresh[] = { 0x66, 0x83, 0x4d, (unsigned char)L->ci_callstatus,
					(unsigned char)L->cist_fresh };

	return !(vmstack_lua_has(code, len, ci_to_rbp, sizeof(ci_to_rbp)) &&
		 vmstack_lua_has(code, len, fresh, sizeof(fresh)));
}

static enum vmstack_detect lua53_detect(const struct vmstack_map *m, int pid,
					struct vmstack_vm_found *f, char *why, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	const struct lua53_layout *L = NULL;
	static struct vm_prog p;	/* 6 KB: not on the stack */
	uint64_t lo, start, end;
	char version[32];
	size_t i;

	if (!elf || vmstack_lua_version(elf, version, sizeof(version)) ||
	    strncmp(version, "Lua 5.3", 7) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	for (i = 0; i < sizeof(lua53_layouts) / sizeof(lua53_layouts[0]); i++)
		if (!strcmp(lua53_layouts[i]->version, version))
			L = lua53_layouts[i];
	if (!L) {
		snprintf(why, len, "%s, a version vmstack does not know (it knows 5.3.6)",
			 version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (vmstack_lua_find_loop(elf, "lua_callk", 3, lua53_loop_test, (void *)L, &start,
				  &end, NULL)) {
		snprintf(why, len, "no luaV_execute found below lua_callk that keeps its CallInfo in rbp (%s's layout)",
			 L->version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (start < lo || end > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	vmstack_lua53_prog(L, &p);
	return vmstack_lua_found(m, pid, elf, lo, start, end, &p, &vmstack_lua53_code,
				 L->version, f, why, len);
}

const struct vmstack_runtime vmstack_rt_lua53 = {
	.name = "lua5.3",
	.alias = "lua53",
	.label = "Lua 5.3",
	.help = "Lua 5.3 in any mapped file of a known version (5.3.6: lua5.3, liblua5.3, HAProxy)",
	.detect = lua53_detect,
	.namer = vmstack_lua_frame_name,
	.site_namer = vmstack_lua_site_name,
	.across_mask = VMSTACK_LUA_ACROSS_MASK,
	.across_bits = VMSTACK_LUA_PC_FROM_LUA,
	.names_by_pc = true,
};
