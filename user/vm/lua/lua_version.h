/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PUC Lua's version, as its file carries it in lua_ident: the one fact
 * that tells a Lua 5.4 (lua54.c) from a 5.1 to 5.3 (lua51.c, lua52.c,
 * lua53.c), whatever the file is called or embeds it (Redis, HAProxy).
 */
#ifndef VMSTACK_VM_LUA_VERSION_H
#define VMSTACK_VM_LUA_VERSION_H

#include <gelf.h>
#include <stddef.h>

/* "Lua 5.4.4" in @buf, from lua_ident; 0, or -1 if the file has none. */
int vmstack_lua_version(Elf *elf, char *buf, size_t len);

#endif
