/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lua 5.1 (lua51.c): a build's layout, where its loop keeps L, and the
 * ABI 4 program that walks one luaV_execute activation's CallInfos (for
 * the unit tests, which run it on fake stacks).
 */
#ifndef VMSTACK_VM_LUA51_H
#define VMSTACK_VM_LUA51_H

#include <stdbool.h>
#include <stdint.h>

#include "vm/lua/lua_proto.h"
#include "vm/prog.h"

struct lua51_layout {
	const char *version;		/* as lua_ident names it: "Lua 5.1.5" */
	/* lua_State (lstate.h) */
	int32_t l_tt, l_ci, l_savedpc, l_end_ci, l_base_ci;
	uint8_t tthread;		/* LUA_TTHREAD: a lua_State's tt */
	/* CallInfo, an array */
	int32_t ci_func, ci_savedpc, ci_size, ci_tailcalls;
	/* TValue's tag; Closure */
	int32_t tv_tt;
	uint8_t tfunction;		/* LUA_TFUNCTION: Lua and C closures */
	int32_t cl_isc, lcl_p;
	uint8_t tproto;			/* a Proto's CommonHeader tt */
	/* Instructions: the opcode's bits; the calls that stay in one loop */
	uint32_t op_mask;
	uint8_t op_call, op_tailcall, op_tforloop;
	struct lua_proto_facts proto;
};

extern const struct lua51_layout vmstack_lua515;

/*
 * Where a luaV_execute frame has its L: the loop keeps it in rbp (sp_off
 * unused), or its caller (luaD_call) kept it in a register the loop saves
 * at sp + sp_off.
 */
struct lua51_state_at {
	bool in_rbp;
	int32_t sp_off;
};

void vmstack_lua51_prog(const struct lua51_layout *L, const struct lua51_state_at *at,
			struct vm_prog *p);

#endif
