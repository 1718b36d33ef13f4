// SPDX-License-Identifier: GPL-2.0
/*
 * Where a C host embedding LuaJIT waits, with a known split: a Lua
 * handler (waiter.lua's handle) calls two C functions that block, slow_io
 * sleeping 30 ms and fast_io 10 ms, so three quarters of the time off CPU
 * is under slow_io and one quarter under fast_io, each below the Lua
 * frame of its call. A little CPU work (spin, about 1 ms a request) keeps
 * the thread's runs real. The JIT is off: frames are the interpreter's.
 * Usage: waiter SECONDS [SPIN_MS]
 * With SPIN_MS, spin runs that long a request, and at the end the wall
 * time spent in each function is printed (a wall-clock profile's
 * reference): "waiter: wall spin S slow_io S fast_io S".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <lualib.h>

static const char script[] =
	"function handle()\n"
	"  spin()\n"
	"  slow_io()\n"
	"  fast_io()\n"
	"end\n";

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Wall time in each function, for the report. */
static double in_spin, in_slow, in_fast;
static double spin_s = 0.001;

/* One nanosleep of @ms, resumed when a signal cuts it short. */
static void block_ms(long ms)
{
	struct timespec t = { .tv_sec = 0, .tv_nsec = ms * 1000000 };

	while (nanosleep(&t, &t))
		;
}

int slow_io(lua_State *l)
{
	double t0 = now();

	(void)l;
	block_ms(30);
	in_slow += now() - t0;
	return 0;
}

int fast_io(lua_State *l)
{
	double t0 = now();

	(void)l;
	block_ms(10);
	in_fast += now() - t0;
	return 0;
}

int spin(lua_State *l)
{
	volatile unsigned long x = 0;
	double t0 = now(), t;

	(void)l;
	while ((t = now()) - t0 < spin_s)
		x++;
	in_spin += t - t0;
	return 0;
}

void serve(lua_State *L, double seconds)
{
	double t0 = now();

	do {
		lua_getglobal(L, "handle");
		if (lua_pcall(L, 0, 0, 0)) {
			fprintf(stderr, "waiter: %s\n", lua_tostring(L, -1));
			exit(1);
		}
	} while (now() - t0 < seconds);
}

int main(int argc, char **argv)
{
	lua_State *L = luaL_newstate();

	luaL_openlibs(L);
	luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
	lua_register(L, "slow_io", slow_io);
	lua_register(L, "fast_io", fast_io);
	lua_register(L, "spin", spin);
	if (luaL_loadbuffer(L, script, sizeof(script) - 1, "@waiter.lua") ||
	    lua_pcall(L, 0, 0, 0)) {
		fprintf(stderr, "waiter: %s\n", lua_tostring(L, -1));
		return 1;
	}
	if (argc > 2)
		spin_s = atof(argv[2]) / 1000;
	serve(L, argc > 1 ? atof(argv[1]) : 3);
	lua_close(L);
	if (argc > 2)
		fprintf(stderr, "waiter: wall spin %.3f slow_io %.3f fast_io %.3f\n",
			in_spin, in_slow, in_fast);
	return 0;
}
