/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lua 5.2 (lua52.c): a build's layout, and the ABI 4 program that walks
 * one luaV_execute activation's CallInfos from the lua_State its loop
 * keeps in rbp (for the unit tests, which run it on fake stacks).
 */
#ifndef VMSTACK_VM_LUA52_H
#define VMSTACK_VM_LUA52_H

#include <stdint.h>

#include "vm/lua/lua_proto.h"
#include "vm/prog.h"

struct lua52_layout {
	const char *version;		/* as lua_ident names it: "Lua 5.2.4" */
	/* lua_State (lstate.h) */
	int32_t l_tt, l_ci;
	uint8_t tthread;		/* LUA_TTHREAD: a lua_State's tt */
	/* CallInfo, a list; callstatus a byte */
	int32_t ci_func, ci_previous, ci_savedpc, ci_callstatus;
	uint8_t cist_lua, cist_hooked, cist_reentry, cist_tail;
	/* TValue's tag; a Lua closure's (LUA_TLCL | BIT_ISCOLLECTABLE) */
	int32_t tv_tag;
	uint8_t tag_lcl;
	int32_t cl_p;			/* LClosure.p */
	uint8_t tproto;			/* a Proto's CommonHeader tt */
	struct lua_proto_facts proto;
};

extern const struct lua52_layout vmstack_lua524;

/*
 * The program: L in the loop's rbp (r2); its CallInfos from L->ci (or,
 * for the same L, where the inner activation stopped: r8, r9 its L, r10
 * set), down to the one not marked CIST_REENTRY.
 */
void vmstack_lua52_prog(const struct lua52_layout *L, struct vm_prog *p);

#endif
