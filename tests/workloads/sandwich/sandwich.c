// SPDX-License-Identifier: GPL-2.0
/*
 * The sandwich demo: a C program embedding LuaJIT where C calls Lua calls
 * C calls Lua... Two Fibonacci functions, one in C (c_fib) and one in Lua
 * (lua_fib), hand over to each other at fixed depths:
 *   c_fib:   n == 20 or n == 8  -> lua_fib through lua_pcall
 *   lua_fib: n == 14 or n == 4  -> c_fib through the C function l_c_fib
 * so run() -> c_fib(26) goes C, Lua, C, Lua, C, and lua_fib(26) goes
 * Lua, C, Lua, C. The JIT is off: frames are the interpreter's.
 * Usage: sandwich SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

static const char script[] =
	"function lua_fib(n)\n"
	"  if n < 2 then return n end\n"
	"  if n == 14 or n == 4 then return c_fib(n) end\n"
	"  return lua_fib(n - 1) + lua_fib(n - 2)\n"
	"end\n";

static lua_State *L;

long c_fib(long n);

long lua_fib_call(long n)
{
	long r;

	lua_getglobal(L, "lua_fib");
	lua_pushinteger(L, n);
	if (lua_pcall(L, 1, 1, 0)) {
		fprintf(stderr, "sandwich: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	r = (long)lua_tointeger(L, -1);
	lua_pop(L, 1);
	return r;
}

long c_fib(long n)
{
	if (n < 2)
		return n;
	if (n == 20 || n == 8)
		return lua_fib_call(n);
	return c_fib(n - 1) + c_fib(n - 2);
}

static int l_c_fib(lua_State *l)
{
	lua_pushinteger(l, c_fib((long)luaL_checkinteger(l, 1)));
	return 1;
}

void run(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (c_fib(26) != 121393 || lua_fib_call(26) != 121393) {
			fprintf(stderr, "sandwich: wrong result\n");
			exit(1);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	L = luaL_newstate();
	luaL_openlibs(L);
	luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
	lua_register(L, "c_fib", l_c_fib);
	if (luaL_loadbuffer(L, script, sizeof(script) - 1, "@sandwich.lua") ||
	    lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "sandwich: %s\n", lua_tostring(L, -1));
		return 1;
	}
	run(argc > 1 ? atof(argv[1]) : 3);
	lua_close(L);
	return 0;
}
