/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lua 5.3 (lua53.c): a build's layout, and the ABI 4 program that walks
 * one luaV_execute activation's CallInfos (for the unit tests, which run
 * it on fake stacks).
 */
#ifndef VMSTACK_VM_LUA53_H
#define VMSTACK_VM_LUA53_H

#include <stdint.h>

#include "vm/lua/lua_proto.h"
#include "vm/prog.h"

struct lua53_layout {
	const char *version;		/* as lua_ident names it: "Lua 5.3.6" */
	int32_t l_ci;			/* lua_State.ci */
	/* CallInfo (lstate.h) */
	int32_t ci_func, ci_previous, ci_savedpc, ci_callstatus;
	uint16_t cist_fresh, cist_tail, cist_hooked, cist_fin;
	/* TValue's tag; a Lua closure's (LUA_TLCL | BIT_ISCOLLECTABLE) */
	int32_t tv_tag;
	uint8_t tag_lcl;
	int32_t cl_p;			/* LClosure.p */
	uint8_t tproto;			/* a Proto's CommonHeader tt */
	struct lua_proto_facts proto;
};

extern const struct lua53_layout vmstack_lua536;
/* 5.4.4's CallInfo chain, as 5.3's program walks it (lua54.c; for the tests). */
const struct lua53_layout *vmstack_lua544_ci(void);

/* The program: ci in the loop's rbp (r2), down to the CIST_FRESH one. */
void vmstack_lua53_prog(const struct lua53_layout *L, struct vm_prog *p);

#endif
