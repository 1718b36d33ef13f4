// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.1 on x86-64 (Debian's lua5.1; Redis 7.0's own copy, linked into
 * redis-server): find its interpreter loop, write the ABI 4 program that
 * walks its CallInfos, name its functions.
 *
 * 5.1 keeps CallInfos in an array, L->base_ci .. L->ci, and marks none as
 * where a luaV_execute began: a Lua function was entered by a fresh
 * luaV_execute when its caller is C (lua_call, lua_pcall, the thread's
 * base_ci), or is a Lua function whose current instruction is not
 * OP_CALL or OP_TAILCALL (a metamethod, a for iterator: luaD_call). The
 * loop keeps no CallInfo in a register, so the program needs L: the
 * innermost activation starts at L->ci, each next one where the last
 * stopped (r8), as long as it is the same L (a coroutine's activations
 * are its own L's).
 *
 * Where a frame of the loop has L is the build's: Debian's GCC keeps it
 * in rbp (moved there from rdi first thing), which the native unwinder
 * recovers in every frame; Redis's build keeps it in rbx, which it cannot,
 * but the loop's caller luaD_call keeps L in rbx too, so the loop's own
 * prologue saves L at a fixed place of its frame (sp + the pushes' and
 * the frame's size, read from those instructions). A loop entered from
 * elsewhere (lua_resume's resume, for coroutines) saves what its caller
 * had there: the program checks the type byte of what it finds, and a
 * frame where that is no lua_State keeps its native frame.
 */
#include <string.h>

#include "elf_facts.h"
#include "file.h"
#include "vm/lua/lua51.h"
#include "vm/lua/lua_code.h"
#include "vm/lua/lua_find.h"
#include "vm/lua/lua_version.h"
#include "vm/runtime.h"

/*
 * Lua 5.1.5 (lua.org's 5.1.5 tarball: lstate.h, lobject.h, lopcodes.h),
 * offsets as GCC lays them out on x86-64; Redis 7.0.0's deps/lua (5.1.5
 * and its patches: cjson, cmsgpack, struct, bit, no bytecode loading, a
 * read-only flag in Table) leaves every struct below as it is.
 */
const struct lua51_layout vmstack_lua515 = {
	.version = "Lua 5.1.5",
	.l_tt = 0x08,
	.l_ci = 0x28,
	.l_savedpc = 0x30,		/* the running Lua function's pc */
	.l_end_ci = 0x48,
	.l_base_ci = 0x50,
	.tthread = 8,
	.ci_func = 0x08,
	.ci_savedpc = 0x18,
	.ci_size = 0x28,
	.ci_tailcalls = 0x24,		/* int */
	.tv_tt = 0x08,			/* int */
	.tfunction = 6,
	.cl_isc = 0x0a,			/* byte */
	.lcl_p = 0x20,
	.tproto = 9,			/* LUA_TPROTO = LAST_TAG + 1 */
	.op_mask = 0x3f,		/* SIZE_OP 6 at POS_OP 0 */
	.op_call = 28,
	.op_tailcall = 29,
	.op_tforloop = 33,
	.proto = {
		.p_linedefined = 0x60,
		.p_source = 0x40,	/* TString * */
		.gc_tt = 0x08,
		.str_tag = 4,		/* LUA_TSTRING */
		.shr_tt = 0,		/* one kind of string */
		.ts_len = 0x10,
		.ts_contents = 0x18,	/* sizeof(TString), aligned as L_Umaxalign */
	},
};

static const struct lua51_layout *const lua51_layouts[] = { &vmstack_lua515 };

/*
 * Is CallInfo @ci's function C, or none (base_ci): to @c; else its
 * Closure in @cl. Uses @tmp.
 */
static void is_c(const struct lua51_layout *L, struct vm_prog *p, int ci, int cl, int tmp,
		 vm_label c, vm_label bad)
{
	vm_prog_ld(p, 8, 0, cl, ci, L->ci_func, bad);
	vm_prog_ld(p, 4, 0, tmp, cl, L->tv_tt, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, tmp, L->tfunction, c);
	vm_prog_ld(p, 8, 0, cl, cl, 0, bad);
	vm_prog_ld(p, 1, 0, tmp, cl, L->cl_isc, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, tmp, 0, c);
}

/*
 * r8: the next CallInfo to look at; r9: its L; r10: 1 once r8, r9 hold;
 * r11: L->base_ci; r12: frames this run showed.
 */
void vmstack_lua51_prog(const struct lua51_layout *L, const struct lua51_state_at *at,
			struct vm_prog *p)
{
	vm_label fresh, loop, saved, show, emit, same, check, c_frame, bottom, done, bad, nostate;
	vm_label cut;

	vm_prog_init(p);
	fresh = vm_prog_label(p), loop = vm_prog_label(p), saved = vm_prog_label(p);
	show = vm_prog_label(p), same = vm_prog_label(p), bottom = vm_prog_label(p);
	done = vm_prog_label(p), bad = vm_prog_label(p), nostate = vm_prog_label(p);
	check = vm_prog_label(p), c_frame = vm_prog_label(p), emit = vm_prog_label(p);
	cut = vm_prog_label(p);
	/* This frame's L, a lua_State by its type byte. */
	if (at->in_rbp)
		vm_prog_insn(p, VMSTACK_VM4_MOV, 3, 2, 0);
	else
		vm_prog_ld(p, 8, 0, 3, 1, at->sp_off, nostate);
	vm_prog_ld(p, 1, 0, 4, 3, L->l_tt, nostate);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 4, L->tthread, nostate);
	/* The same L as the inner activation: go on where it stopped. */
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 10, 0, fresh);
	vm_prog_jmp(p, VMSTACK_VM4_JEQ, 9, 3, loop);
	vm_prog_bind(p, fresh);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 9, 3, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 10, 0, 1);
	vm_prog_ld(p, 8, 0, 11, 9, L->l_base_ci, nostate);
	vm_prog_ld(p, 8, 0, 8, 9, L->l_ci, nostate);
	/* L->ci inside the array. */
	vm_prog_jmp(p, VMSTACK_VM4_JLT, 8, 11, nostate);
	vm_prog_ld(p, 8, 0, 4, 9, L->l_end_ci, nostate);
	vm_prog_jmp(p, VMSTACK_VM4_JGT, 8, 4, nostate);
	vm_prog_bind(p, loop);
	/* base_ci is the thread's C level: nothing below it to show. */
	vm_prog_jmp(p, VMSTACK_VM4_JLE, 8, 11, done);
	is_c(L, p, 8, 3, 4, c_frame, bad);
	vm_prog_ld(p, 8, 0, 3, 3, L->lcl_p, bad);
	vm_prog_ld(p, 1, 0, 4, 3, L->proto.gc_tt, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 4, L->tproto, bad);
	/* The running function's pc is the state's; the others saved theirs. */
	vm_prog_ld(p, 8, 0, 4, 9, L->l_ci, bad);
	vm_prog_jmp(p, VMSTACK_VM4_JNE, 8, 4, saved);
	vm_prog_ld(p, 8, 0, 4, 9, L->l_savedpc, bad);
	vm_prog_ja(p, show);
	vm_prog_bind(p, saved);
	vm_prog_ld(p, 8, 0, 4, 8, L->ci_savedpc, bad);
	vm_prog_bind(p, show);
	/* A tail-called function: its pc marked (VMSTACK_LUA_PC_TAIL). */
	vm_prog_ld(p, 4, 0, 5, 8, L->ci_tailcalls, bad);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 5, 0, check);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_TAIL);
	/*
	 * Did this luaV_execute begin here? Ask the caller's instruction: a
	 * call goes on in this loop; a TFORLOOP called its iterator through
	 * luaD_call, the caller's frame in the loop outside
	 * (VMSTACK_LUA_PC_FROM_LUA, named as 5.1 names it); else below.
	 */
	vm_prog_bind(p, check);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 7, 8, 0);
	vm_prog_insn(p, VMSTACK_VM4_SUB_K, 7, 0, L->ci_size);
	vm_prog_jmp(p, VMSTACK_VM4_JLE, 7, 11, emit);
	is_c(L, p, 7, 6, 5, emit, cut);
	vm_prog_ld(p, 8, 0, 6, 7, L->ci_savedpc, cut);
	vm_prog_ld(p, 4, 0, 6, 6, -4, cut);
	vm_prog_insn(p, VMSTACK_VM4_AND_K, 6, 0, (int32_t)L->op_mask);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 6, L->op_call, same);
	vm_prog_jmp_k(p, VMSTACK_VM4_JEQ_K, 6, L->op_tailcall, same);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 6, L->op_tforloop, emit);
	vm_prog_insn(p, VMSTACK_VM4_OR_K, 4, 0, VMSTACK_LUA_PC_FROM_LUA);
	/* The loop's first frame: shown, then the native frames below. */
	vm_prog_bind(p, emit);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 8, 7, 0);
	vm_prog_bind(p, bottom);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	/* Called in this loop: shown, then its caller. */
	vm_prog_bind(p, same);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_insn(p, VMSTACK_VM4_MOV_K, 12, 0, 1);
	vm_prog_insn(p, VMSTACK_VM4_MOV, 8, 7, 0);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, c_frame);
	vm_prog_insn(p, VMSTACK_VM4_SUB_K, 8, 0, L->ci_size);
	vm_prog_ja(p, loop);
	vm_prog_bind(p, done);
	vm_prog_jmp_k(p, VMSTACK_VM4_JNE_K, 12, 0, bottom);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_EMPTY);
	/* The caller unreadable: this frame shown, the rest cut. */
	vm_prog_bind(p, cut);
	vm_prog_insn(p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	vm_prog_bind(p, bad);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(p, nostate);
	vm_prog_insn(p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);
}

/* What the loop test saw of a candidate: where it keeps L. */
struct lua51_seen {
	const struct lua51_layout *L;
	bool l_in_rbp, l_in_rbx;
};

/* "mov disp8(%rdi),%r64" (REX.W 8B, mod 01 rm 111) with @disp, in @code. */
static int loads_from_rdi(const unsigned char *code, size_t len, int32_t disp)
{
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if ((code[i] == 0x48 || code[i] == 0x4c) && code[i + 1] == 0x8b &&
		    (code[i + 2] & 0xc7) == 0x47 && code[i + 3] == (unsigned char)disp)
			return 1;
	return 0;
}

/* "mov %esi,disp8(%rsp)" (89 74 24, no REX): nexeccalls, an int, kept in the frame. */
static int stores_esi(const unsigned char *code, size_t len)
{
	size_t i;

	for (i = 1; i + 4 <= len; i++)
		if (code[i] == 0x89 && code[i + 1] == 0x74 && code[i + 2] == 0x24 &&
		    (code[i - 1] & 0xf0) != 0x40)
			return 1;
	return 0;
}

/*
 * luaV_execute(L, nexeccalls)'s first instructions, as GCC emits them:
 * L->ci and L->savedpc read from rdi, nexeccalls (an int) stored in the
 * frame, and L moved to rbp or rbx. luaD_precall reads L->ci through
 * the register it moved L to, and takes no int in esi.
 */
static int lua51_loop_test(const unsigned char *code, size_t len, void *arg)
{
	static const unsigned char rdi_to_rbp[] = { 0x48, 0x89, 0xfd };
	static const unsigned char rdi_to_rbx[] = { 0x48, 0x89, 0xfb };
	struct lua51_seen *seen = arg;

	if (!loads_from_rdi(code, len, seen->L->l_ci) ||
	    !loads_from_rdi(code, len, seen->L->l_savedpc) || !stores_esi(code, len))
		return -1;
	seen->l_in_rbp = vmstack_lua_has(code, len, rdi_to_rbp, sizeof(rdi_to_rbp));
	seen->l_in_rbx = vmstack_lua_has(code, len, rdi_to_rbx, sizeof(rdi_to_rbx));
	return seen->l_in_rbp || seen->l_in_rbx ? 0 : -1;
}

/*
 * Where the prologue at @code saves rbx, from sp once it is done: its
 * pushes (push r64, with a lea rip-relative or a register move between
 * them, as GCC schedules them), then "sub $N,%rsp". 0, or -1 for an
 * instruction this does not know.
 */
static int rbx_slot(const unsigned char *code, size_t len, int32_t *off)
{
	int pushes = 0, rbx_at = -1;
	size_t i = 0;

	while (i + 7 <= len) {
		const unsigned char *c = code + i;

		if (c[0] >= 0x50 && c[0] <= 0x57) {		/* push rax..rdi */
			if (c[0] == 0x53)
				rbx_at = pushes;
			pushes++;
			i += 1;
		} else if (c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57) {	/* push r8..r15 */
			pushes++;
			i += 2;
		} else if ((c[0] & 0xf8) == 0x48 && c[1] == 0x8d && (c[2] & 0xc7) == 0x05) {
			i += 7;					/* lea disp32(%rip),%r64 */
		} else if ((c[0] & 0xfa) == 0x48 && c[1] == 0x89 && (c[2] & 0xc0) == 0xc0) {
			i += 3;					/* mov %r64,%r64 */
		} else if (c[0] == 0x48 && c[1] == 0x83 && c[2] == 0xec) {
			if (rbx_at < 0)
				return -1;
			*off = (int32_t)c[3] + 8 * (pushes - rbx_at - 1);
			return 0;
		} else if (c[0] == 0x48 && c[1] == 0x81 && c[2] == 0xec) {
			int32_t n;

			if (rbx_at < 0)
				return -1;
			memcpy(&n, c + 3, 4);
			*off = n + 8 * (pushes - rbx_at - 1);
			return 0;
		} else {
			return -1;
		}
	}
	return -1;
}

/*
 * Where the loop at @start has L (*@at), or a reason it cannot be
 * known in @why. @caller: the function seen calling it (luaD_call).
 */
static int state_at(Elf *elf, const struct lua51_seen *seen, uint64_t start,
		    uint64_t caller, struct lua51_state_at *at, char *why, size_t len)
{
	static const unsigned char rdi_to_rbx[] = { 0x48, 0x89, 0xfb };
	unsigned char code[64];

	at->in_rbp = seen->l_in_rbp;
	if (at->in_rbp)
		return 0;
	if (vmstack_elf_read(elf, caller, code, sizeof(code)) ||
	    !vmstack_lua_has(code, sizeof(code), rdi_to_rbx, sizeof(rdi_to_rbx))) {
		snprintf(why, len, "its luaV_execute keeps L in rbx, and luaD_call does not");
		return -1;
	}
	if (vmstack_elf_read(elf, start, code, sizeof(code)) ||
	    rbx_slot(code, sizeof(code), &at->sp_off)) {
		snprintf(why, len, "its luaV_execute keeps L in rbx and its prologue is not one vmstack reads");
		return -1;
	}
	return 0;
}

static enum vmstack_detect lua51_detect(const struct vmstack_map *m, int pid,
					struct vmstack_vm_found *f, char *why, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	static struct vm_prog p;	/* 6 KB: not on the stack */
	struct lua51_seen seen = { NULL, false, false };
	struct lua51_state_at at = { false, 0 };
	uint64_t lo, start, end, caller;
	char version[32];
	size_t i;

	if (!elf || vmstack_lua_version(elf, version, sizeof(version)) ||
	    strncmp(version, "Lua 5.1", 7) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	for (i = 0; i < sizeof(lua51_layouts) / sizeof(lua51_layouts[0]); i++)
		if (!strcmp(lua51_layouts[i]->version, version))
			seen.L = lua51_layouts[i];
	if (!seen.L) {
		snprintf(why, len, "%s, a version vmstack does not know (it knows 5.1.5)",
			 version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (vmstack_lua_find_loop(elf, "lua_call", 2, lua51_loop_test, &seen, &start, &end,
				  &caller)) {
		snprintf(why, len, "no luaV_execute found below lua_call that keeps L in rbp or rbx (%s's layout)",
			 seen.L->version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (start < lo || end > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	if (state_at(elf, &seen, start, caller, &at, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	vmstack_lua51_prog(seen.L, &at, &p);
	return vmstack_lua_found(m, pid, elf, lo, start, end, &p, &vmstack_lua51_code,
				 seen.L->version, f, why, len);
}

const struct vmstack_runtime vmstack_rt_lua51 = {
	.name = "lua5.1",
	.alias = "lua51",
	.label = "Lua 5.1",
	.help = "Lua 5.1 in any mapped file of a known version (5.1.5: Debian's lua5.1, Redis 7.0's own)",
	.detect = lua51_detect,
	.namer = vmstack_lua_frame_name,
	.site_namer = vmstack_lua_site_name,
	.across_mask = VMSTACK_LUA_ACROSS_MASK,
	.across_bits = VMSTACK_LUA_PC_FROM_LUA,
	.names_by_pc = true,
};
