// SPDX-License-Identifier: GPL-2.0
/*
 * Lua functions named as Lua names them, checked against the live
 * interpreters: Debian's lua5.1 to lua5.4 run a script whose
 * functions, called as a global, a method, a field, a local and an
 * upvalue, each write what debug.getinfo(2, "n") calls them (the name
 * their caller's call gives them) to a file; the innermost, tail called
 * (Lua names it not), spins. The
 * test stops the interpreter in its loop, finds the frames (the runtime's
 * own program through the walker) and names each from the frame below it
 * (vmstack_lua_callee_name), and the spinning one's line
 * (vmstack_lua_current_line). Needs root and the interpreters: skipped
 * with a message without them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "lua_live.h"
#include "unit.h"
#include "util.h"
#include "vm/lua/lua51.h"
#include "vm/lua/lua53.h"
#include "vm/lua/lua_code.h"
#include "vm/runtime.h"

#define NCALLS	6
#define NFRAMES	5

/*
 * The calls g, m, f, l2, t, then u (by a tail call, in t's place),
 * outermost first; u spins at line 3.
 */
static const char script[] =
	"local out = io.open(arg[1], 'w')\n"
	"local function me() out:write(tostring(debug.getinfo(2, 'n').name), '\\n') out:flush() end\n"
	"local function u() me() local i = 0 while true do i = i + 1 end end\n"
	"local function t() me() return u() end\n"
	"local function l() me() t() end\n"
	"mod = {}\n"
	"function mod.f() me() local l2 = l; l2() end\n"
	"local obj = {}\n"
	"function obj:m() me() mod.f() end\n"
	"function g() me() obj:m() end\n"
	"g()\n";

/* The leaf, u, spins at line 3. */
static void then_line(const void *build, pid_t pid, uint64_t leaf_proto, uint64_t leaf_pc)
{
	CHECK(vmstack_lua_current_line(build, pid, leaf_proto, leaf_pc) == 3);
}

static void names_live(const char *rt_name, const char *interp)
{
	lua_live_names(&(struct lua_live_names){ rt_name, interp, script, NCALLS, NFRAMES, false,
						 then_line });
}

UNIT_TEST(lua51_live_names)
{
	names_live("lua5.1", "/usr/bin/lua5.1");
}

UNIT_TEST(lua52_live_names)
{
	names_live("lua5.2", "/usr/bin/lua5.2");
}

UNIT_TEST(lua53_live_names)
{
	names_live("lua5.3", "/usr/bin/lua5.3");
}

UNIT_TEST(lua54_live_names)
{
	names_live("lua5.4", "/usr/bin/lua5.4");
}

/*
 * Across the VM's own C frames (5.3, 5.4): the script's iterator `it`,
 * called by a generic for in an __index metamethod, which l's px.key
 * called, spins. Each runs in a luaV_execute of its own, the VM calling
 * it for its caller's instruction: the program marks the iterator's
 * frame (VMSTACK_LUA_PC_FROM_LUA), and each is named from the caller its
 * CallInfo's previous is (read here: no unwinding through the C frames
 * between), as debug.getinfo names them: "for iterator", "__index"
 * (5.4: "index").
 */
static const char across_script[] =
	"local out = io.open(arg[1], 'w')\n"
	"local function me() out:write(tostring(debug.getinfo(2, 'n').name), '\\n') out:flush() end\n"
	"local function it() me() local i = 0 while true do i = i + 1 end end\n"
	"local px = setmetatable({}, { __index = function() me() for _ in it do end end })\n"
	"local function l() me() local _ = px.key end\n"
	"l()\n";

/* The Proto and saved pc of CallInfo @ci's previous one; 0, or -1. */
static int previous_lua(const struct lua53_layout *L, pid_t pid, uint64_t ci, uint64_t *proto,
			uint64_t *pc)
{
	uint64_t prev, func, cl;

	return read_target(pid, ci + L->ci_previous, &prev, 8) ||
	       read_target(pid, prev + L->ci_func, &func, 8) ||
	       read_target(pid, func, &cl, 8) || read_target(pid, cl + L->cl_p, proto, 8) ||
	       read_target(pid, prev + L->ci_savedpc, pc, 8) ? -1 : 0;
}

static void across_live(const char *rt_name, const char *interp, const struct lua53_layout *L,
			const struct lua_code_facts *C, const char *mm)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(rt_name);
	static struct vmstack_vm_found found;
	char want[3][64], got[64];
	struct vmstack_map m;
	struct lua_live_frames fr;
	struct user_regs_struct r;
	struct vmstack_frame callee = { .kind = VMSTACK_FRAME_SCRIPT },
			     caller = { .kind = VMSTACK_FRAME_SCRIPT };
	uint64_t ci_it, ci_mm;
	pid_t pid = lua_live_attach(rt_name, interp, across_script, &found, &m);

	if (!pid)
		return;
	lua_live_script_frames(&found.desc4, pid, &fr);
	CHECK(lua_live_read_names(want, 3) == 3 && !strcmp(want[1], mm) &&
	      !strcmp(want[2], "for iterator"));
	/* The innermost activation: the iterator alone, marked. */
	CHECK(fr.n >= 1 && (fr.pc[0] & VMSTACK_LUA_PC_FROM_LUA) && rt->across_mask);
	CHECK(!ptrace(PTRACE_GETREGS, pid, 0, &r));
	ci_it = r.rbp;		/* luaV_execute keeps its ci in rbp */
	callee.value = fr.proto[0];
	callee.pc = fr.pc[0];
	CHECK((callee.pc & rt->across_mask) == rt->across_bits);
	CHECK(!previous_lua(L, pid, ci_it, &caller.value, &caller.pc));
	if (vmstack_lua_site_name(C, pid, &callee, &caller, got, sizeof(got)))
		snprintf(got, sizeof(got), "nil");
	fprintf(stderr, "  %s: the iterator named %s, Lua says %s\n", interp, got, want[2]);
	CHECK(!strcmp(got, want[2]));
	/*
	 * The metamethod: its caller l, its own pc marked as the program does
	 * (set here: the walk here ends with the innermost activation; the
	 * guest's t_vm_lua54 names it from the program's mark).
	 */
	CHECK(found.across_stop_hi > found.across_stop_lo);	/* lua_resume's */
	CHECK(!read_target(pid, ci_it + L->ci_previous, &ci_mm, 8));
	callee.pc = VMSTACK_LUA_PC_FROM_LUA;
	CHECK(!previous_lua(L, pid, ci_mm, &caller.value, &caller.pc));
	if (vmstack_lua_site_name(C, pid, &callee, &caller, got, sizeof(got)))
		snprintf(got, sizeof(got), "nil");
	fprintf(stderr, "  %s: the metamethod named %s, Lua says %s\n", interp, got, want[1]);
	CHECK(!strcmp(got, want[1]));
	lua_live_detach(pid, &m);
}

UNIT_TEST(lua53_live_names_across)
{
	across_live("lua5.3", "/usr/bin/lua5.3", &vmstack_lua536, &vmstack_lua53_code, "__index");
}

UNIT_TEST(lua54_live_names_across)
{
	across_live("lua5.4", "/usr/bin/lua5.4", vmstack_lua544_ci(), &vmstack_lua54_code, "index");
}

/*
 * 5.1: its CallInfos an array, each the previous one's next. The
 * iterator's frame (L->ci; the loop keeps L in rbp) is marked, and named
 * from the __index function's TFORLOOP, its CallInfo the one before: the
 * local "(for generator)", as 5.1 names it; 5.1 names no metamethod.
 */
UNIT_TEST(lua51_live_names_across)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find("lua5.1");
	const struct lua51_layout *L = &vmstack_lua515;
	static struct vmstack_vm_found found;
	char want[3][64], got[64];
	struct vmstack_map m;
	struct lua_live_frames fr;
	struct user_regs_struct r;
	struct vmstack_frame callee = { .kind = VMSTACK_FRAME_SCRIPT },
			     caller = { .kind = VMSTACK_FRAME_SCRIPT };
	uint64_t ci, func, cl;
	pid_t pid = lua_live_attach("lua5.1", "/usr/bin/lua5.1", across_script, &found, &m);

	if (!pid)
		return;
	lua_live_script_frames(&found.desc4, pid, &fr);
	CHECK(lua_live_read_names(want, 3) == 3 && !strcmp(want[1], "nil") &&
	      !strcmp(want[2], "(for generator)"));
	CHECK(fr.n >= 1 && (fr.pc[0] & VMSTACK_LUA_PC_FROM_LUA) && rt->across_mask);
	CHECK(!ptrace(PTRACE_GETREGS, pid, 0, &r));
	callee.value = fr.proto[0];
	callee.pc = fr.pc[0];
	CHECK((callee.pc & rt->across_mask) == rt->across_bits);
	CHECK(!read_target(pid, r.rbp + L->l_ci, &ci, 8));
	ci -= (uint64_t)L->ci_size;
	CHECK(!read_target(pid, ci + L->ci_func, &func, 8) && !read_target(pid, func, &cl, 8) &&
	      !read_target(pid, cl + L->lcl_p, &caller.value, 8) &&
	      !read_target(pid, ci + L->ci_savedpc, &caller.pc, 8));
	if (vmstack_lua_site_name(&vmstack_lua51_code, pid, &callee, &caller, got, sizeof(got)))
		snprintf(got, sizeof(got), "nil");
	fprintf(stderr, "  /usr/bin/lua5.1: the iterator named %s, Lua says %s\n", got, want[2]);
	CHECK(!strcmp(got, want[2]));
	lua_live_detach(pid, &m);
}

/*
 * Functions a Lua function's instruction did not call, though their
 * CallInfo's previous one is that function's: a hook's function (the
 * hook called it), a finalizer (the collector did), and in a resumed
 * coroutine a function its caller's OP_CALL called, which 5.3's unroll
 * enters afresh (its caller's luaV_execute is gone: the script frame the
 * recorder finds across the C frames is the resumer's, whose call named
 * the coroutine, not this function). Each spins; vmstack gives it no name
 * across C frames: the program leaves it unmarked (hooked, finalizer), or
 * a caller's instruction that is a call names no function run in a
 * luaV_execute of its own. (Lua's debug.getinfo says "?" for the hook's,
 * "__gc" for the finalizer in 5.4, and names the coroutine's by the call.)
 */
static const char *const not_across_scripts[] = {
	"debug.sethook(function() local i = 0 while true do i = i + 1 end end, '', 100)\n"
	"local t while true do t = {} end\n",
	"setmetatable({}, { __gc = function() local i = 0 while true do i = i + 1 end end })\n"
	"local t while true do t = {} end\n",
	"local co = coroutine.wrap(function()\n"
	"  local function h() coroutine.yield() local i = 0 while true do i = i + 1 end end\n"
	"  h()\n"
	"end)\n"
	"co() co()\n",
};

static void not_across_live(const char *rt_name, const char *interp,
			    const struct lua53_layout *L, const struct lua_code_facts *C)
{
	static const char *const what[] = { "a hook's function", "a finalizer",
					    "a function a resumed coroutine called" };
	static const int32_t line[] = { 1, 1, 2 };	/* where each is defined */
	const struct vmstack_runtime *rt = vmstack_runtime_find(rt_name);
	static struct vmstack_vm_found found;
	char got[64];
	struct vmstack_map m;
	struct user_regs_struct r;
	unsigned int k;

	for (k = 0; k < 3; k++) {
		struct lua_live_frames fr;
		struct vmstack_frame callee = { .kind = VMSTACK_FRAME_SCRIPT },
				     caller = { .kind = VMSTACK_FRAME_SCRIPT };
		pid_t pid = lua_live_attach(rt_name, interp, not_across_scripts[k], &found, &m);
		int32_t defined = 0;
		bool marked;

		if (!pid)
			return;
		lua_live_script_frames(&found.desc4, pid, &fr);
		CHECK(fr.n >= 1 && !ptrace(PTRACE_GETREGS, pid, 0, &r));
		/* The leaf is the spinning function (its line defined). */
		CHECK(fr.n && !read_target(pid, fr.proto[0] + C->str.p_linedefined, &defined, 4) &&
		      defined == line[k]);
		callee.value = fr.proto[0];
		callee.pc = fr.pc[0];
		marked = fr.n && (callee.pc & rt->across_mask) == rt->across_bits;
		got[0] = 0;
		if (marked && !previous_lua(L, pid, r.rbp, &caller.value, &caller.pc) &&
		    vmstack_lua_site_name(C, pid, &callee, &caller, got, sizeof(got)))
			got[0] = 0;
		fprintf(stderr, "  %s: %s %s, named \"%s\"\n", interp, what[k],
			marked ? "marked" : "not marked", got);
		CHECK(!got[0]);
		/* 5.3 and 5.4 mark neither a hook's function nor a finalizer. */
		CHECK(k == 2 || !marked);
		lua_live_detach(pid, &m);
	}
}

UNIT_TEST(lua53_live_not_across)
{
	not_across_live("lua5.3", "/usr/bin/lua5.3", &vmstack_lua536, &vmstack_lua53_code);
}

UNIT_TEST(lua54_live_not_across)
{
	not_across_live("lua5.4", "/usr/bin/lua5.4", vmstack_lua544_ci(), &vmstack_lua54_code);
}
