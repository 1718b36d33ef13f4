// SPDX-License-Identifier: GPL-2.0
/*
 * A C program embedding PUC Lua through its shared library (Debian's
 * liblua5.1, 5.2, 5.3: one build per version, the version's headers and
 * library), as servers do: it runs a script file with its arguments in
 * the global "arg" (arg[0] the file), in a protected call (lua_pcall; a
 * C library function the script calls, table.sort, calls Lua back).
 * Usage: lua_host SCRIPT [ARG...]
 */
#include <stdio.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

int main(int argc, char **argv)
{
	lua_State *L;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s SCRIPT [ARG...]\n", argv[0]);
		return 2;
	}
	L = luaL_newstate();
	if (!L)
		return 1;
	luaL_openlibs(L);
	lua_newtable(L);
	for (i = 1; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - 1);
	}
	lua_setglobal(L, "arg");
	if (luaL_loadfile(L, argv[1]) || lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "%s: %s\n", argv[0], lua_tostring(L, -1));
		lua_close(L);
		return 1;
	}
	lua_close(L);
	return 0;
}
