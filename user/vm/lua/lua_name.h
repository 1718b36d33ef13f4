/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Lua function's name, for both Lua runtimes (LuaJIT, Lua 5.4). A Lua
 * function has no name of its own (the variables that hold it name it),
 * so it is named by where it is defined: "CHUNK:LINE", CHUNK from its
 * chunk name: "@file" is a file, "=name" a special name, anything else
 * the source text itself, shown as "[string]".
 */
#ifndef VMSTACK_VM_LUA_NAME_H
#define VMSTACK_VM_LUA_NAME_H

#include "frame.h"

/*
 * @out: function "PREFIXCHUNK:LINE" (@prefix names what runs there, a
 * trace: "TRACE_3 "), file CHUNK, @line as its line and first line.
 */
void vmstack_lua_name(struct vmstack_name_buf *out, const char *prefix,
		      const char *chunk, int line);

#endif
