/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live Lua interpreters for the unit tests: spawn one, stop it (ptrace,
 * seized) in its loop, copy its writable memory into the fake address
 * space the walker reads.
 */
#ifndef VMSTACK_TEST_LUA_LIVE_H
#define VMSTACK_TEST_LUA_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "maps.h"
#include "vm/runtime.h"
#include "walk.h"

/* The executable mapping of @path in @pid, in @m (its file got); 0, or -1. */
int lua_live_code_map(pid_t pid, const char *path, struct vmstack_map *m);
/* The process's writable private mappings (up to 64 MB each) as fake memory. */
void lua_live_mirror(pid_t pid);
/* Stop @pid (seized) with its pc in [lo, hi); 0, or -1. */
int lua_live_stop_in(pid_t pid, uint64_t lo, uint64_t hi, struct user_regs_struct *r);
/* Spawn @argv, its stdout to /dev/null; its pid. */
pid_t lua_live_spawn(char *const argv[]);
/*
 * Write @script to file argv[1], spawn interpreter argv[0] on it and give
 * it 0.2 s to reach its loop: its pid; or 0, skipped with a message,
 * without root or the interpreter.
 */
pid_t lua_live_run(char *const argv[], const char *script);

/*
 * Stop @pid in the loop of VM @d, mirror it and walk its stack with @d's
 * program, as the module would: the words in @ips; how many (0: not stopped).
 */
unsigned int lua_live_walk(const struct vmstack_vm_desc4 *d, pid_t pid, u64 *ips,
			   unsigned int max);

/* Where lua_live_names() writes its script, and the script its names. */
#define LUA_LIVE_SCRIPT	"build/unit-lua-live-names.lua"
#define LUA_LIVE_NAMES	"build/unit-lua-live-names.txt"

/*
 * @interp started on @script (the names file its arg[1]), detected by
 * runtime @rt_name into @found and @m, seized: its pid; 0 (skipped: a
 * message said why) without root or the interpreter.
 */
pid_t lua_live_attach(const char *rt_name, const char *interp, const char *script,
		      struct vmstack_vm_found *found, struct vmstack_map *m);
/* The script frames the walk of lua_live_walk() shows, leaf first (at most 16). */
struct lua_live_frames {
	uint64_t proto[16], pc[16];
	unsigned int n;
};
void lua_live_script_frames(const struct vmstack_vm_desc4 *d, pid_t pid,
			    struct lua_live_frames *fr);
/* The first lines, at most @max, the script wrote to the names file: how many. */
unsigned int lua_live_read_names(char (*want)[64], unsigned int max);
/* Kill what lua_live_attach() started, and clean up after it. */
void lua_live_detach(pid_t pid, struct vmstack_map *m);

/*
 * A names test on a live interpreter: @interp runs @script (with the
 * names file as arg[1]), whose functions each write the name
 * debug.getinfo(2, "n") gives them, outermost first, @ncalls lines, the
 * last the innermost's, which spins. Runtime @rt detects the process; its
 * own program walks it (@desc3: its ABI 3 descriptor, compiled); frame k
 * (leaf first, @nframes of them) is named by frame k + 1 with the
 * runtime's site namer and must be what Lua wrote on line @nframes - 1 -
 * k (the leaf: the last line). @then, if set, runs on the stopped process
 * with the build and the leaf frame. Skipped, with a message, without
 * root or the interpreter.
 */
struct lua_live_names {
	const char *rt, *interp, *script;
	unsigned int ncalls, nframes;
	bool desc3;
	void (*then)(const void *build, pid_t pid, uint64_t leaf_proto, uint64_t leaf_pc);
};
void lua_live_names(const struct lua_live_names *t);

#endif
