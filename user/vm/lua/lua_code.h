/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What PUC Lua's debug.getinfo(f, "n") calls a function, and the line a
 * frame is at, from the bytecode: the facts of one version's instructions
 * and Proto (struct lua_code_facts, data in lua_ops.c), and the analysis
 * its ldebug.c does (lua_callname.c, lua_line.c).
 *
 * A function has no name of its own: Lua names it by how its caller got
 * it, reading back from the caller's call instruction to the one that
 * loaded the called register (a global, a field, a method, a local, an
 * upvalue). The rules differ between 5.1 (symbexec), 5.2, 5.3 and 5.4
 * (findsetreg, each with its own jumps and opcodes): version says which.
 */
#ifndef VMSTACK_VM_LUA_CODE_H
#define VMSTACK_VM_LUA_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "vm/lua/lua_proto.h"

/*
 * In a frame's PC word (its saved pc, 4-byte aligned): the frame was
 * tail called, so the call its caller is at called another function
 * (5.1's ci->tailcalls, 5.2's to 5.4's CIST_TAIL), which the runtimes'
 * programs mark there.
 */
#define VMSTACK_LUA_PC_TAIL	1
/*
 * And: the frame began a luaV_execute (called through C) while its
 * previous CallInfo is a Lua function's: no C function called it, the
 * VM did for that function's current instruction (a metamethod, a for
 * iterator; 5.1: an iterator, 5.1 naming no metamethod), so that
 * function, across the VM's own C frames, is its caller (vm/runtime.h
 * across_mask): unless a tail call put it there.
 */
#define VMSTACK_LUA_PC_FROM_LUA	2
#define VMSTACK_LUA_ACROSS_MASK	(VMSTACK_LUA_PC_TAIL | VMSTACK_LUA_PC_FROM_LUA)

/* What an opcode does, as far as naming goes. */
enum lua_op_kind {
	LOP_OTHER,
	LOP_MOVE, LOP_LOADK, LOP_LOADKX, LOP_LOADNIL, LOP_GETUPVAL,
	LOP_GETGLOBAL,				/* 5.1 */
	LOP_GETTABLE, LOP_GETTABUP, LOP_GETFIELD, LOP_GETI, LOP_SELF,
	LOP_CALL, LOP_TAILCALL,
	LOP_TFORCALL,				/* 5.3, 5.4: names "for iterator" */
	LOP_TFORLOOP51,				/* 5.1: calls the iterator */
	LOP_JMP,
	LOP_FORJMP51,				/* 5.1 symbexec: FORLOOP, FORPREP jump */
	LOP_SETLIST51, LOP_CLOSURE51,		/* 5.1 symbexec skips what follows */
};

struct lua_op {
	uint8_t kind;		/* enum lua_op_kind */
	uint8_t sets_a;		/* lopcodes.c's A mode: the instruction sets R(A) */
};

struct lua_code_facts {
	uint8_t version;		/* 51, 52, 53 or 54 (52 named as 53) */
	const struct lua_op *ops;	/* by opcode */
	unsigned int nops;
	/* Instruction fields (lopcodes.h): position and width */
	uint8_t op_bits, a_pos, a_bits, b_pos, b_bits, c_pos, c_bits, bx_pos, bx_bits;
	uint8_t ax_pos, ax_bits, k_pos;	/* 5.4's k bit */
	uint32_t rk_bit;		/* 5.1, 5.3: B or C a constant (BITRK) */
	int32_t sbx_bias, sj_bias;	/* sBx = Bx - bias; 5.4's sJ = Ax's bits - bias */
	/* Proto */
	int32_t p_k, p_code, p_sizecode, p_p, p_upvalues, p_sizeupvalues;
	int32_t p_locvars, p_sizelocvars, p_nups;	/* p_nups: 5.1 */
	int32_t p_lineinfo, p_sizelineinfo, p_abslineinfo, p_sizeabslineinfo;
	int32_t upval_size;		/* 5.1: a TString *; later an Upvaldesc, name first */
	int32_t locvar_size, locvar_startpc, locvar_endpc;	/* LocVar: varname first */
	int32_t tv_size, tv_tt;		/* TValue: its tag's low byte */
	struct lua_proto_facts str;	/* strings (TString) */
	/*
	 * Metamethods (ltm.h's TMS): what each op may call, 1 + its TM (0
	 * none, LUA_TM_FROM_C: 5.4's MMBIN*, the TM in C), as ldebug.c's
	 * funcnamefromcode (5.2: getfuncname) names it: tm_names[TM] past
	 * tm_skip characters (5.4 drops the "__"). 5.1 names none (NULL).
	 */
	const uint8_t *op_tm;
	const char *const *tm_names;
	uint8_t ntm, tm_skip;
};
#define LUA_TM_FROM_C	0xff

extern const struct lua_code_facts vmstack_lua51_code, vmstack_lua52_code,
	vmstack_lua53_code, vmstack_lua54_code;

/*
 * The name debug.getinfo gives the function that Proto @proto's
 * activation, its saved pc @savedpc (past its current instruction), is
 * calling, in @out: 0, or -1 when Lua would give none (the instruction is
 * no call) or memory does not read. @across: the callee ran in a
 * luaV_execute of its own, the VM calling it for this instruction (a
 * metamethod, a for iterator), never for a CALL or TAILCALL, whose callee
 * runs in its caller's luaV_execute (but one a resumed coroutine's CallInfos
 * reentered: Lua 5.3's unroll marks them fresh); else only a call names.
 */
int vmstack_lua_callee_name(const struct lua_code_facts *C, int pid, uint64_t proto,
			    uint64_t savedpc, bool across, char *out, size_t len);

/*
 * Every PUC Lua runtime's site_namer (vm/runtime.h), its build the
 * version's struct lua_code_facts: what script frame @caller calls
 * @callee, its Proto and saved pc the frames' value and pc; -1 for a
 * callee tail called.
 */
int vmstack_lua_site_name(const void *build, int pid, const struct vmstack_frame *callee,
			  const struct vmstack_frame *caller, char *out, size_t len);

/*
 * Every PUC Lua runtime's namer, its build the version's struct
 * lua_code_facts: script frame @f as "CHUNK:LINEDEFINED" (lua_name.h),
 * with the line it is at as its line. 0, or -1.
 */
int vmstack_lua_frame_name(const void *build, int pid, const struct vmstack_frame *f,
			   struct vmstack_name_buf *out);

/* The line of Proto @proto's activation at @savedpc, as currentline; -1 if not known. */
int vmstack_lua_current_line(const struct lua_code_facts *C, int pid, uint64_t proto,
			     uint64_t savedpc);

#endif
