// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/lua/lua_version.h"

int vmstack_lua_version(Elf *elf, char *buf, size_t len)
{
	/* "$LuaVersion: Lua 5.3.6  Copyright..." from 5.2 on, "$Lua: Lua 5.1.5 ..." before. */
	static const char *const prefixes[] = { "$LuaVersion: ", "$Lua: " };
	char ident[64];
	GElf_Sym sym;
	size_t i, n, size;

	if (vmstack_elf_symbol(elf, "lua_ident", &sym))
		return -1;
	size = sym.st_size && sym.st_size < sizeof(ident) ? sym.st_size : sizeof(ident);
	if (vmstack_elf_read(elf, sym.st_value, ident, size))
		return -1;
	ident[size - 1] = 0;
	for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
		n = strlen(prefixes[i]);
		if (strncmp(ident, prefixes[i], n) || strncmp(ident + n, "Lua 5.", 6))
			continue;
		/* The version ends at the next space. */
		snprintf(buf, len, "%.*s", (int)(strcspn(ident + n + 4, " ") + 4), ident + n);
		return 0;
	}
	return -1;
}
