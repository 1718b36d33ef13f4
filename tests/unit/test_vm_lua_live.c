// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.1 to 5.3 on a live interpreter: Debian's lua5.1, lua5.2, lua5.3, a
 * C host of liblua5.3.so.0 (HAProxy's Lua), and Redis 7.0's redis-server
 * by EVAL, run a script whose comparator, called by table.sort (C ->
 * Lua), spins in a Lua function; the test stops the process (ptrace) in luaV_execute,
 * copies its heap and stack into the fake address space, runs the
 * runtime's own program through the module's walker with the stopped
 * registers, and names the frames it shows from the live process: the
 * layout, the loop's register, the activation's bottom and the namer,
 * all checked against the real thing. Needs root (ptrace, /proc/PID/mem)
 * and the interpreters: skipped with a message without them.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_mem.h"
#include "lua_live.h"
#include "file.h"
#include "unit.h"
#include "vm/runtime.h"
#include "walk.h"

#define SCRIPT	"build/unit-lua-live.lua"

/* Lines 1 and 5 define spin and cmp: their names are SCRIPT:1, SCRIPT:5. */
static const char script[] =
	"local function spin()\n"
	"  local i = 0\n"
	"  while true do i = i + 1 end\n"
	"end\n"
	"local function cmp(a, b)\n"
	"  spin()\n"
	"  return a < b\n"
	"end\n"
	"table.sort({3, 2, 1}, cmp)\n";

/*
 * Stop @pid, running the script in @file (mapped as @code), in its loop
 * and walk: the first VM frames shown are spin and cmp, named CHUNK:1
 * and CHUNK:5; cmp is at line 6, calling spin, which its call names
 * "spin" (an upvalue, as debug.getinfo says).
 */
static void live_walk(const char *rt_name, pid_t pid, const char *code, const char *chunk)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(rt_name);
	static struct vmstack_vm_found found;
	struct vmstack_map m = { 0 };
	static u64 ips[64];
	struct vmstack_frame fr[2] = { { .kind = VMSTACK_FRAME_SCRIPT },
				       { .kind = VMSTACK_FRAME_SCRIPT } };
	unsigned int n, i, k = 0;
	char why[256], want[2][64], site[64];

	CHECK(rt && !lua_live_code_map(pid, code, &m));
	memset(&found, 0, sizeof(found));
	CHECK(rt && rt->detect(&m, pid, &found, why, sizeof(why)) == VMSTACK_DETECT_YES);
	CHECK(!ptrace(PTRACE_SEIZE, pid, 0, 0));
	n = lua_live_walk(&found.desc4, pid, ips, 64);
	/* The sampled frame is the loop's: its Lua frames stand in its place. */
	CHECK(n >= 4 && vmstack_is_vmw(ips[0]) && vmstack_is_vmw(ips[2]));
	snprintf(want[0], sizeof(want[0]), "%s:1", chunk);
	snprintf(want[1], sizeof(want[1]), "%s:5", chunk);
	for (i = 0; i + 1 < n && k < 2; i++) {
		struct vmstack_name_buf nb;

		if (!vmstack_is_vmw(ips[i]) || vmstack_vmw_kind(ips[i]) != VMSTACK_VMW_SCRIPT)
			continue;
		fr[k].value = ips[i] & VMSTACK_VMW_VALUE_MASK;
		fr[k].pc = ips[++i];
		memset(&nb, 0, sizeof(nb));
		CHECK(!rt->namer(found.build, pid, &fr[k], &nb));
		if (strcmp(nb.function, want[k]))
			fprintf(stderr, "  %s: frame %u is %s, not %s\n", code, k, nb.function,
				want[k]);
		CHECK(!strcmp(nb.function, want[k]));
		CHECK(k == 0 || nb.line == 6);
		k++;
	}
	CHECK(k == 2 && !rt->site_namer(found.build, pid, &fr[0], &fr[1], site, sizeof(site)) &&
	      !strcmp(site, "spin"));
	if (k < 2)
		fprintf(stderr, "  %s: %u of 2 Lua frames shown (%u words)\n", code, k, n);
	CHECK(k == 2);
	vmstack_file_put(m.file);
}

/* @interp runs the script from a file. */
static void live_lua(const char *rt_name, const char *interp)
{
	char *argv[] = { (char *)interp, (char *)SCRIPT, NULL };
	pid_t pid = lua_live_run(argv, script);

	if (!pid)
		return;
	live_walk(rt_name, pid, interp, SCRIPT);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(SCRIPT);
}

UNIT_TEST(lua53_live)
{
	live_lua("lua5.3", "/usr/bin/lua5.3");
}

UNIT_TEST(lua51_live)
{
	live_lua("lua5.1", "/usr/bin/lua5.1");
}

UNIT_TEST(lua52_live)
{
	live_lua("lua5.2", "/usr/bin/lua5.2");
}

/*
 * Redis 7.0's Lua 5.1 in redis-server (file redis-check-rdb): the same
 * script by EVAL, whose chunk Redis names "@user_script"; L where the
 * loop's prologue saved it (sp + 0x58).
 */
UNIT_TEST(lua51_live_redis)
{
	char *server[] = { "/usr/bin/redis-server", "--port", "0", "--unixsocket",
			   "build/unit-redis.sock", "--save", "", "--appendonly", "no", NULL };
	char *cli[] = { "/usr/bin/redis-cli", "-s", "build/unit-redis.sock", "EVAL",
			(char *)script, "0", NULL };
	pid_t srv, c;
	int i;

	if (geteuid() || access(server[0], X_OK) || access(cli[0], X_OK)) {
		fprintf(stderr, "  redis-server: not installed or not root, skipped\n");
		return;
	}
	unlink("build/unit-redis.sock");
	srv = lua_live_spawn(server);
	for (i = 0; i < 100 && access("build/unit-redis.sock", F_OK); i++)
		usleep(20000);
	c = lua_live_spawn(cli);
	usleep(300000);
	live_walk("lua5.1", srv, "/usr/bin/redis-check-rdb", "user_script");
	kill(c, SIGKILL);
	kill(srv, SIGKILL);
	waitpid(c, NULL, 0);
	waitpid(srv, NULL, 0);
	unlink("build/unit-redis.sock");
}

/*
 * HAProxy's Lua: Debian's liblua5.3.so.0 in a C host (this test's child,
 * which loads it with dlopen: no headers needed) running the script as
 * chunk "@embedded.lua".
 */
UNIT_TEST(lua53_live_library)
{
	static const char lib[] = "/usr/lib/x86_64-linux-gnu/liblua5.3.so.0.0.0";
	char real[512];
	pid_t pid;

	if (geteuid() || access(lib, R_OK) || !realpath(lib, real)) {
		fprintf(stderr, "  %s: not installed or not root, skipped\n", lib);
		return;
	}
	pid = fork();
	if (!pid) {
		void *(*newstate)(void);
		void (*openlibs)(void *);
		int (*load)(void *, const char *, size_t, const char *, const char *);
		int (*pcallk)(void *, int, int, int, intptr_t, void *);
		void *h = dlopen(lib, RTLD_NOW), *L;

		if (!h)
			_exit(127);
		*(void **)&newstate = dlsym(h, "luaL_newstate");
		*(void **)&openlibs = dlsym(h, "luaL_openlibs");
		*(void **)&load = dlsym(h, "luaL_loadbufferx");
		*(void **)&pcallk = dlsym(h, "lua_pcallk");
		if (!newstate || !openlibs || !load || !pcallk || !(L = newstate()))
			_exit(126);
		openlibs(L);
		if (load(L, script, sizeof(script) - 1, "@embedded.lua", NULL))
			_exit(125);
		_exit(pcallk(L, 0, 0, 0, 0, NULL));
	}
	usleep(200000);
	live_walk("lua5.3", pid, real, "embedded.lua");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
