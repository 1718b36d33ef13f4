// SPDX-License-Identifier: GPL-2.0
/*
 * ljrun LIB SCRIPT [ARG]: run a Lua script on the LuaJIT library LIB.
 *
 * The tests need a host for LuaJIT builds that ship only a library
 * (OpenResty's libluajit, unpacked into a private prefix so it never
 * replaces the system's).  The library is opened by path, so one binary
 * serves every build without its headers; ARG becomes the global "arg1".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct lua_State lua_State;

int main(int argc, char **argv)
{
	lua_State *(*newstate)(void);
	void (*openlibs)(lua_State *);
	int (*loadfile)(lua_State *, const char *);
	int (*pcall)(lua_State *, int, int, int);
	const char *(*tolstring)(lua_State *, int, size_t *);
	void (*pushstring)(lua_State *, const char *);
	void (*setfield)(lua_State *, int, const char *);
	lua_State *L;
	void *lib;

	if (argc < 3) {
		fprintf(stderr, "usage: ljrun LIB SCRIPT [ARG]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "ljrun: %s\n", dlerror());
		return 2;
	}
	*(void **)&newstate = dlsym(lib, "luaL_newstate");
	*(void **)&openlibs = dlsym(lib, "luaL_openlibs");
	*(void **)&loadfile = dlsym(lib, "luaL_loadfile");
	*(void **)&pcall = dlsym(lib, "lua_pcall");
	*(void **)&tolstring = dlsym(lib, "lua_tolstring");
	*(void **)&pushstring = dlsym(lib, "lua_pushstring");
	*(void **)&setfield = dlsym(lib, "lua_setfield");
	if (!newstate || !openlibs || !loadfile || !pcall || !tolstring ||
	    !pushstring || !setfield) {
		fprintf(stderr, "ljrun: %s is not a Lua 5.1 API library\n", argv[1]);
		return 2;
	}
	L = newstate();
	if (!L)
		return 2;
	openlibs(L);
	/* LUA_GLOBALSINDEX of the 5.1 API. */
	pushstring(L, argc > 3 ? argv[3] : "");
	setfield(L, -10002, "arg1");
	if (loadfile(L, argv[2]) || pcall(L, 0, 0, 0)) {
		fprintf(stderr, "ljrun: %s\n", tolstring(L, -1, NULL));
		return 1;
	}
	return 0;
}
