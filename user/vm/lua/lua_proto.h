/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Lua 5.1 to 5.3 function's name from its Proto, as lua_getinfo's
 * "S" gives it: the chunk name (source) and the line it is defined at
 * (linedefined). What differs between versions is where those fields
 * are and how a string keeps its length (5.1: one kind of string; 5.3:
 * short strings a byte, long ones a size_t): a struct lua_proto_facts
 * each version fills from its layout.
 */
#ifndef VMSTACK_VM_LUA_PROTO_H
#define VMSTACK_VM_LUA_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

struct lua_proto_facts {
	int32_t p_linedefined, p_source;	/* Proto */
	int32_t gc_tt;				/* CommonHeader's tt */
	uint8_t str_tag;			/* a string's tt, low 4 bits (LUA_TSTRING) */
	uint8_t shr_tt;				/* 5.3: a short string's tt; 0: one kind */
	int32_t ts_shrlen, ts_len, ts_contents;	/* TString; ts_len: 5.1's len, 5.3's lnglen */
};

/* TString @ts's text in @buf (cut to @len - 1 bytes); 0 or -1. */
int vmstack_lua_string(const struct lua_proto_facts *F, int pid, uint64_t ts, char *buf,
		       size_t len);

/* "CHUNK:LINE" (lua_name.h) of Proto @proto in process @pid; 0 or -1. */
int vmstack_lua_proto_name(const struct lua_proto_facts *F, int pid, uint64_t proto,
			   struct vmstack_name_buf *out);

#endif
