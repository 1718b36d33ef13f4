// SPDX-License-Identifier: GPL-2.0
/*
 * LuaJIT's functions named as LuaJIT's own debug.getinfo(f, "n") names
 * them (vm/luajit/lj_callname.h), against the live interpreters: Debian's
 * luajit and Tarantool (its own LuaJIT, 32-bit references, described by
 * its DWARF) run a script, JIT off, whose functions are called as a
 * global, a method, a field, a local, an upvalue (a vararg function), a
 * generic for's iterator, an __index metamethod and, by a tail call, in
 * another's place; each
 * writes the name debug.getinfo(2, "n") gives it. The innermost spins:
 * the test stops the interpreter there, walks the frames with LuaJIT's
 * descriptor and names each from the frame below it. Needs root and the
 * interpreters: skipped with a message without them.
 *
 * And the opcode modes the name scan relies on, against the lj_bc_mode
 * table of a build that keeps its symbols (Tarantool's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_facts.h"
#include "fake_mem.h"
#include "file.h"
#include "lua_live.h"
#include "unit.h"
#include "util.h"
#include "vm/desc3_prog.h"
#include "vm/luajit/lj_callname.h"
#include "vm/luajit/luajit.h"
#include "vm/runtime.h"

#define NCALLS	9	/* g m f l2 va (for generator) __index t, and u's */
#define NFRAMES	8	/* u idx it va l f m g, leaf first, each named by the next */

static const char script[] =
	"jit.off()\n"
	"local out = io.open(arg[1], 'w')\n"
	"local function me() out:write(tostring(debug.getinfo(2, 'n').name), '\\n') out:flush() end\n"
	"local function u() me() local i = 0 while true do i = i + 1 end end\n"
	"local function t() me() return u() end\n"
	"local px = setmetatable({}, { __index = function() me() t() end })\n"
	"local function it() me() local _ = px.key end\n"
	"local function va(...) me() for _ in it do end end\n"
	"local function l() me() va(1, 2) end\n"
	"mod = {}\n"
	"function mod.f() me() local l2 = l; l2() end\n"
	"local obj = {}\n"
	"function obj:m() me() mod.f() end\n"
	"function g() me() obj:m() end\n"
	"g()\n";

/*
 * The VM state frame's G (L->glref, user/vm/luajit/luajit.c) is the one
 * the interpreter, stopped in its code, keeps: DISPATCH (r14) less g2disp;
 * L is the cframe's (SAVE_L at rsp + cframe_l).
 */
static void glref_agrees(const void *build, pid_t pid)
{
	const struct luajit_layout *lj = build;
	struct user_regs_struct r;
	uint64_t l = 0, g = 0;
	size_t ref = lj->fr->gc64 ? 8 : 4;

	CHECK(!ptrace(PTRACE_GETREGS, pid, 0, &r));
	CHECK(!read_target(pid, r.rsp + (uint64_t)lj->fr->cframe_l, &l, ref) &&
	      !read_target(pid, l + (uint64_t)lj->l_glref, &g, ref));
	fprintf(stderr, "  G from L->glref %#lx, from DISPATCH %#llx\n", (unsigned long)g,
		r.r14 - (unsigned long long)lj->g2disp);
	CHECK(g && g == ((r.r14 - (uint64_t)lj->g2disp) & (ref == 8 ? ~0ULL : 0xffffffffULL)));
}

static void then_glref(const void *build, pid_t pid, uint64_t leaf_proto, uint64_t leaf_pc)
{
	(void)leaf_proto;
	(void)leaf_pc;
	glref_agrees(build, pid);
}

static void names_live(const char *interp)
{
	lua_live_names(&(struct lua_live_names){ "luajit", interp, script, NCALLS, NFRAMES, true,
						 then_glref });
}

UNIT_TEST(luajit_live_names)
{
	names_live("/usr/bin/luajit");
}

UNIT_TEST(tarantool_live_names)
{
	names_live("/usr/bin/tarantool");
}

/* lj_bc.h: BCMdst 1, BCMbase 2 in bits 0-2; the metamethod from bit 11 (MM_index 0, MM_call 9). */
UNIT_TEST(luajit_opcode_modes_of_build)
{
	const char *path = "/usr/bin/tarantool";
	struct vmstack_file *file;
	size_t n, op;
	const uint8_t *want = vmstack_luajit_a_modes(&n);
	uint16_t mode[128];
	unsigned int bad = 0;
	GElf_Sym sym;
	struct stat st;
	Elf *elf;

	if (stat(path, &st)) {
		fprintf(stderr, "  %s: not installed, skipped\n", path);
		return;
	}
	file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	elf = file ? vmstack_file_elf(file) : NULL;
	CHECK(elf && !vmstack_elf_symbol(elf, "lj_bc_mode", &sym) && sym.st_size >= n * 2 &&
	      !vmstack_elf_read(elf, sym.st_value, mode, n * 2));
	if (!elf)
		return;
	for (op = 0; op < n; op++) {
		unsigned int a = mode[op] & 7;

		if ((a == 1 || a == 2 ? a : 0) != want[op]) {
			fprintf(stderr, "  op %zu: A mode %u in %s, %u in the scan's table\n", op, a,
				path, want[op]);
			bad++;
		}
	}
	/* Each op's metamethod: lj_bc_mode's top bits, MM__MAX (17 or more) for none. */
	want = vmstack_luajit_op_mms(&n);
	for (op = 0; op < n; op++) {
		unsigned int mm = mode[op] >> 11;

		if ((mm < 17 ? mm + 1 : 0) != want[op]) {
			fprintf(stderr, "  op %zu: metamethod %u in %s, %u - 1 in the table\n", op, mm,
				path, want[op]);
			bad++;
		}
	}
	/* The numbers the scan names: GGET 54, TGETS 57 index; CALLM..ITERN 65-70 call. */
	CHECK(mode[54] >> 11 == 0 && mode[57] >> 11 == 0);
	for (op = 65; op <= 70; op++)
		CHECK(mode[op] >> 11 == 9);
	CHECK(!bad);
	vmstack_file_put(file);
}
