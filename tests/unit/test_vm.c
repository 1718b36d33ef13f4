// SPDX-License-Identifier: GPL-2.0
/*
 * VM runtimes found in the installed files, by what they are (a version
 * symbol, a build-id), never by name; builds they do not know; descriptors
 * in text; each VM's frames named by its own runtime.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_facts.h"
#include "process.h"
#include "detect_file.h"
#include "unit.h"
#include "vm/desc3_prog.h"
#include "util.h"
#include "walk.h"
#include "vm/luajit/luajit.h"
#include "vm/runtime.h"
#include "vm/text.h"

#define MAP_START 0x10000000ULL

struct found {
	enum vmstack_detect verdict;
	struct vmstack_vm_found f;
	char why[256];
	uint64_t lo, hi;	/* the interpreter's code, from the mapping's start */
};

/* What runtime @rt says of @path mapped whole at MAP_START. */
static struct found detect(const struct vmstack_runtime *rt, const char *path)
{
	struct vmstack_map m = { .start = MAP_START, .end = MAP_START + 0x10000000 };
	struct found r = { .verdict = VMSTACK_DETECT_NO };
	struct stat st;

	CHECK(!stat(path, &st));
	m.path = (char *)path;
	m.file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	r.verdict = rt->detect(&m, 0, &r.f, r.why, sizeof(r.why));
	if (r.verdict == VMSTACK_DETECT_YES) {
		/* An ABI 4 program's loop is its first range. */
		r.lo = (r.f.prog ? r.f.desc4.ranges[0].start : r.f.desc.code_start) - MAP_START;
		r.hi = (r.f.prog ? r.f.desc4.ranges[0].end : r.f.desc.code_end) - MAP_START;
	}
	vmstack_file_put(m.file);
	return r;
}

static const struct vmstack_runtime *rt_named(const char *name)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(name);

	CHECK(rt != NULL);
	return rt;
}

/* Is the return to the interpreter [from, to) in the file's addresses, as r.lo is? */
static bool exit_entry(const struct found *r, uint64_t from, uint64_t to)
{
	uint64_t bias = r->f.desc.code_start - r->lo;

	if (r->f.desc.exit_entry_start - bias == from && r->f.desc.exit_entry_end - bias == to)
		return true;
	fprintf(stderr, "  exit handler's entry %#llx..%#llx\n",
		(unsigned long long)(r->f.desc.exit_entry_start - bias),
		(unsigned long long)(r->f.desc.exit_entry_end - bias));
	return false;
}

/* Code ranges from the project's notes on VM internals (Debian 12 files). */
UNIT_TEST(luajit_builds_found)
{
	const struct vmstack_runtime *lj = rt_named("luajit");
	struct found r;

	r = detect(lj, "/usr/bin/luajit");
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.lo == 0x704e0 && r.hi == 0x74525);
	CHECK(r.f.desc.link == VMSTACK_VM_LINK_TAGGED_DELTA && r.f.desc.state_off == 0x10);
	/* lj_vm_exit_interp's lea, mov, mov, mov rsp (objdump). */
	CHECK(exit_entry(&r, 0x7418f, 0x7419e));
	r = detect(lj, "/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2");
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.lo == 0x8d70 && r.hi == 0xcdb5);
	CHECK(exit_entry(&r, 0xca1f, 0xca2e));
	/* Not LuaJIT: not claimed, whatever the file. */
	CHECK(detect(lj, "/usr/bin/lua5.4").verdict == VMSTACK_DETECT_NO);
	CHECK(detect(lj, "/usr/bin/python3.11").verdict == VMSTACK_DETECT_NO);
}

#define OPENRESTY_LIB "/opt/vmstack/openresty/usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2"

/*
 * Tarantool 2.6.0 (Debian 12): its own LuaJIT, 32-bit references, known
 * from its DWARF alone; facts from the project's notes on that build (the
 * interpreter's FDE, tarantool_L, G = L + 64). OpenResty's library: from
 * the table, by build-id.
 */
UNIT_TEST(luajit_production_builds)
{
	const struct vmstack_runtime *lj = rt_named("luajit");
	struct found r;

	r = detect(lj, "/usr/bin/tarantool");
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	if (r.verdict != VMSTACK_DETECT_YES) {
		fprintf(stderr, "  tarantool: %s\n", r.why);
		return;
	}
	/* Non-PIE: addresses are the file's, moved by where the test maps it. */
	CHECK(r.lo == 0x5eb450 - 0x400000 && r.hi == 0x5eec52 - 0x400000);
	CHECK(r.f.desc.flags & VMSTACK_VM_F_REF32);
	CHECK(r.f.desc.state_off == 24 && r.f.desc.top_off == 16 && r.f.desc.stack_off == 36);
	CHECK(r.f.desc.link_off == 4 && r.f.desc.func_off == 0);
	CHECK(r.f.desc.jit_reg == VMSTACK_VM_REG_NONE &&
	      r.f.desc.jit_anchor_ptr == MAP_START + 0x7dfad0 - 0x400000 &&
	      r.f.desc.jit_anchor_adj == 64);
	CHECK(r.f.desc.flags & VMSTACK_VM_F_JIT);
	CHECK(strstr(r.f.build_name, "32-bit references") &&
	      strstr(r.f.build_name, "DWARF"));
	/* lj_vm_exit_interp's "add rsp, 16" (its symbol, and objdump). */
	CHECK(exit_entry(&r, 0x5ee8e9 - 0x400000, 0x5ee8ed - 0x400000));

	r = detect(lj, OPENRESTY_LIB);
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.f.build_name && strstr(r.f.build_name, "OpenResty"));
	CHECK(!(r.f.desc.flags & VMSTACK_VM_F_REF32) &&
	      r.f.desc.jit_reg == VMSTACK_VM_REG_R14 && r.f.desc.jit_anchor_adj == -0xfa8);
}

/*
 * A layout is checked against the file's code before it is used: a build
 * whose interpreter sets DISPATCH elsewhere, or whose lua_gettop reads
 * other fields, is named and left unprofiled.
 */
UNIT_TEST(luajit_code_disagrees)
{
	static const unsigned char add[] = { 0x41, 0x81, 0xc6, 0x48, 0x0c, 0x00, 0x00 };
	static const unsigned char add2[] = { 0x41, 0x81, 0xc6, 0x50, 0x0c, 0x00, 0x00 };
	/* lua_gettop whole: (top - base) >> 3; ret. */
	static const unsigned char top[] = { 0x48, 0x8b, 0x47, 0x18, 0x48, 0x2b, 0x47, 0x10,
					     0x48, 0xc1, 0xf8, 0x03, 0xc3 };
	static const unsigned char top2[] = { 0x48, 0x8b, 0x47, 0x18, 0x48, 0x2b, 0x47, 0x14,
					      0x48, 0xc1, 0xf8, 0x03, 0xc3 };
	const char *copy;
	struct found r;

	copy = unit_patched_copy("/usr/bin/tarantool", add, add2, sizeof(add), 0,
			    "build/unit-tarantool-dispatch");
	r = detect(rt_named("luajit"), copy);
	CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "DISPATCH is G + 0xc50"));
	unlink(copy);
	copy = unit_patched_copy("/usr/bin/tarantool", top, top2, sizeof(top), 0,
			    "build/unit-tarantool-gettop");
	r = detect(rt_named("luajit"), copy);
	CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "lua_gettop"));
	unlink(copy);
}

/*
 * CPython 3.11 (Debian 12's 3.11.2, build-ids below): found in the
 * executable and in the library by Py_Version and their exported symbols;
 * where each build's _PyCFrame sits, read off its prologue by hand
 * (objdump -d): rsp + 0xb0 in python3.11, rsp + 0xc0 in libpython3.11.
 * Another build of 3.11 must be found too, its offset unchecked here.
 */
UNIT_TEST(cpython_builds_found)
{
	static const struct {
		const char *path, *build_id;
		uint64_t lo, hi;
		int32_t cframe;
	} b[] = {
		{ "/usr/bin/python3.11", "571d98e01096d5c1c32420d229a6731a0a50d2a0",
		  0x12b0f0, 0x12b0f0 + 0xd95c, 0xb0 },	/* from its first load at 0x400000 */
		{ "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
		  "9c43ffefa67ac31d2070c69c46db6d8ced25b942", 0x105200, 0, 0xc0 },
	};
	const struct vmstack_runtime *py = rt_named("cpython");
	struct found r;
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		char id[64] = "";
		int fd = open(b[i].path, O_RDONLY);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

		CHECK(elf && !vmstack_elf_build_id(elf, id, sizeof(id)));
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		r = detect(py, b[i].path);
		CHECK(r.verdict == VMSTACK_DETECT_YES);
		CHECK(r.f.build_name && !strcmp(r.f.build_name, "CPython 3.11.2"));
		CHECK(r.f.desc.state_from == VMSTACK_VM_STATE_THREAD &&
		      r.f.desc.thr_tid_off == 0xa0 && r.f.desc.state_ar_off == 0x38);
		if (strcmp(id, b[i].build_id)) {
			fprintf(stderr, "  %s: build %s, not the one checked by hand\n", b[i].path, id);
			CHECK(r.f.desc.ar_off > 0);
			continue;
		}
		CHECK(r.f.desc.ar_off == b[i].cframe && r.lo == b[i].lo);
		CHECK(!b[i].hi || r.hi == b[i].hi);
	}
	/* Not CPython: not claimed. */
	CHECK(detect(py, "/usr/bin/lua5.4").verdict == VMSTACK_DETECT_NO);
	CHECK(detect(py, "/usr/bin/luajit").verdict == VMSTACK_DETECT_NO);
}

/* A build whose prologue does not link the _PyCFrame as vmstack knows: refused. */
UNIT_TEST(cpython_code_disagrees)
{
	/* lea 0xb0(%rsp),%rcx; mov %rcx,0x38(%rdi) -> mov %rcx,0x40(%rdi) */
	static const unsigned char link[] = { 0x48, 0x8d, 0x8c, 0x24, 0xb0, 0x00, 0x00, 0x00,
					      0x48, 0x89, 0x4f, 0x38 };
	static const unsigned char link2[] = { 0x48, 0x8d, 0x8c, 0x24, 0xb0, 0x00, 0x00, 0x00,
					       0x48, 0x89, 0x4f, 0x40 };
	const char *copy = unit_patched_copy("/usr/bin/python3.11", link, link2, sizeof(link), 0,
					"build/unit-python-cframe");
	struct found r;

	if (!copy)
		return;
	r = detect(rt_named("cpython"), copy);
	CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "_PyCFrame"));
	unlink(copy);
}

/* A LuaJIT whose build-id no layout names: reported, never described. */
UNIT_TEST(luajit_unknown_build)
{
	static const unsigned char id[] = { 0x79, 0xb0, 0xb8, 0x11, 0x4f, 0x05 };
	static const unsigned char other[] = { 0x79, 0xb0, 0xb8, 0x11, 0x4f, 0x06 };
	const char *copy = unit_patched_copy("/usr/bin/luajit", id, other, sizeof(id), 0,
					"build/unit-luajit-other");
	struct found r;

	CHECK(copy != NULL);
	if (!copy)
		return;
	r = detect(rt_named("luajit"), copy);
	CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(r.why, "79b0b8114f06") != NULL);
	unlink(copy);
}

UNIT_TEST(lua54_versions_found)
{
	const struct vmstack_runtime *l54 = rt_named("lua5.4");
	const char *copy;
	struct found r;

	CHECK(rt_named("lua54") == l54);
	r = detect(l54, "/usr/bin/lua5.4");
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.lo == 0x1b3a0 && r.hi == 0x1ef0a);
	/* 5.3's program: the CallInfo in rbp (r2) first. */
	CHECK(r.f.prog && r.f.desc4.prog[0].op == VMSTACK_VM4_MOV &&
	      r.f.desc4.prog[0].regs == VMSTACK_VM4_REGS_OF(8, 2));
	CHECK(!strcmp(r.f.build_name, "Lua 5.4.4"));
	r = detect(l54, "/usr/lib/x86_64-linux-gnu/liblua5.4.so.0");
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.lo == 0x1ef00 && r.hi == 0x22a6a);
	CHECK(detect(l54, "/usr/bin/luajit").verdict == VMSTACK_DETECT_NO);
	/* The version it carries decides: a 5.4 it has no layout of is named. */
	copy = unit_patched_copy("/usr/bin/lua5.4", "$LuaVersion: Lua 5.4.4",
			    "$LuaVersion: Lua 5.4.9", 22, 0, "build/unit-lua549");
	r = detect(l54, copy);
	CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "Lua 5.4.9"));
	unlink(copy);
}

/* Every runtime in the table is complete, and names are unique. */
UNIT_TEST(runtime_table)
{
	const struct vmstack_runtime *const *a, *const *b;

	for (a = vmstack_runtimes; *a; a++) {
		CHECK((*a)->name && (*a)->label && (*a)->namer);
		CHECK(!(*a)->detect || (*a)->help);
		CHECK(vmstack_runtime_find((*a)->name) == *a);
		for (b = a + 1; *b; b++)
			CHECK(strcmp((*a)->name, (*b)->name));
	}
	CHECK(vmstack_runtime_find("nonesuch") == NULL);
}

UNIT_TEST(vm_text_parse)
{
	struct vmstack_vm_text t[4];
	char err[256];

	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nname x\nnamer cstring\n"
				    "code_start 0x1000 # a comment\ncode_end 0x2000\n"
				    "state_from global\nstate_addr 4096\nlink pointer\n"
				    "top_adj -16\nflags native_step,frame_pc\nmax_frames 9\n"
				    "end\nvmstack-vm 2\nname y\n", t, 4, err, sizeof(err)) == 1);
	CHECK(!strcmp(t[0].name, "x") && t[0].namer == &vmstack_rt_cstring);
	CHECK(t[0].desc.code_start == 0x1000 && t[0].desc.code_end == 0x2000);
	CHECK(t[0].desc.state_from == VMSTACK_VM_STATE_GLOBAL);
	CHECK(t[0].desc.state_addr == 4096 && t[0].desc.top_adj == -16);
	CHECK(t[0].desc.flags == (VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC));
	CHECK(t[0].desc.max_frames == 9);
	/* Version 3 adds compiled code, continuation bottoms, activation chains. */
	CHECK(vmstack_vm_text_parse("vmstack-vm 3\nnamer lua54\njit_reg r14\njit_anchor_adj -3968\n"
				    "flags jit,cont_bottom,ar_empty,ar_chain\nar_empty_off 8\n"
				    "cont_type 2\ncont_off -24\n"
				    "cont_val 1\njit_ar_mask 3\nar_prev_off 0x20\n"
				    "ar_chain_max 64\nend\n", t, 4, err, sizeof(err)) == 1);
	CHECK(t[0].namer == vmstack_runtime_find("lua5.4"));
	CHECK(t[0].desc.jit_reg == VMSTACK_VM_REG_R14 && t[0].desc.jit_anchor_adj == -0xf80);
	CHECK(t[0].desc.flags == (VMSTACK_VM_F_JIT | VMSTACK_VM_F_CONT_BOTTOM |
				  VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN) &&
	      t[0].desc.ar_empty_off == 8);
	/* jit_ar_mask: the old name of ar_mask, still read. */
	CHECK(t[0].desc.cont_off == -24 && t[0].desc.cont_val == 1 && t[0].desc.ar_mask == 3);
	CHECK(t[0].desc.ar_prev_off == 0x20 && t[0].desc.ar_chain_max == 64);
	/* ABI 3.2's: a thread's own state, the top in the AR, code objects. */
	CHECK(vmstack_vm_text_parse("vmstack-vm 3\nnamer cpython\nstate_from thread\n"
				    "thr_head_off 16\nthr_next_off 8\nthr_tid_off 0xa0\n"
				    "thr_max 256\nkind_word 0xc0de00\n"
				    "flags native_step,top_ar,func_ident,kind_word\nend\n",
				    t, 4, err, sizeof(err)) == 1);
	CHECK(t[0].namer == vmstack_runtime_find("python"));
	CHECK(t[0].desc.state_from == VMSTACK_VM_STATE_THREAD && t[0].desc.thr_head_off == 16 &&
	      t[0].desc.thr_next_off == 8 && t[0].desc.thr_tid_off == 0xa0 &&
	      t[0].desc.thr_max == 256 && t[0].desc.kind_word == 0xc0de00);
	CHECK(t[0].desc.flags == (VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_TOP_AR |
				  VMSTACK_VM_F_FUNC_IDENT | VMSTACK_VM_F_KIND_WORD));
	/* Every mistake names its line. */
	CHECK(vmstack_vm_text_parse("vmstack-vm 1\n", t, 4, err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 1"));
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\n\nmax_frames 70000\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(strstr(err, "line 3") && strstr(err, "max_frames"));
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nstack_max -1\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nflags fast\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nnamer nonesuch\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nno_such_field 1\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("code_start 1\n", t, 4, err, sizeof(err)) == -1);
}

/*
 * The names of @path's builtins, from its table or its DWARF, are exactly
 * those jit.util.funcinfo() reports when @cmd runs ffid.lua on that build:
 * each name, and nothing more or fewer, except the @hidden ones the host
 * replaces before any script runs.
 */
static void builtin_names_match(const char *path, const char *cmd, unsigned int hidden)
{
	struct found r = detect(rt_named("luajit"), path);
	FILE *p = popen(cmd, "r");
	unsigned int ffid, seen = 0, ours = 0, i;
	char name[64];

	CHECK(p != NULL && r.verdict == VMSTACK_DETECT_YES);
	if (!p || r.verdict != VMSTACK_DETECT_YES) {
		fprintf(stderr, "  %s: %s\n", path, r.why);
		if (p)
			pclose(p);
		return;
	}
	while (fscanf(p, "%u %63s", &ffid, name) == 2) {
		const char *n = vmstack_luajit_ffid_name(r.f.build, ffid);

		if (!n || strcmp(n, name))
			fprintf(stderr, "  %s: ffid %u is %s, we say %s\n", path, ffid,
				name, n ? n : "nothing");
		CHECK(n && !strcmp(n, name));
		seen++;
	}
	CHECK(pclose(p) == 0);
	for (i = 0; i < 1000; i++)
		ours += vmstack_luajit_ffid_name(r.f.build, i) != NULL;
	if (ours != seen + hidden)
		fprintf(stderr, "  %s: we name %u builtins, the build reports %u\n",
			path, ours, seen);
	CHECK(seen > 150 && ours == seen + hidden);
}

UNIT_TEST(luajit_builtin_names)
{
	builtin_names_match("/usr/bin/luajit", "luajit tests/workloads/lua/ffid.lua", 0);
	/*
	 * Tarantool's fork: names from its DWARF's FastFunc enumeration.  One
	 * builtin, os.exit (121), is out of a script's reach: Tarantool puts its
	 * own os.exit in its place.
	 */
	builtin_names_match("/usr/bin/tarantool", "tarantool tests/workloads/lua/ffid.lua", 1);
	CHECK(!strcmp(vmstack_luajit_ffid_name(detect(rt_named("luajit"),
						       "/usr/bin/tarantool").f.build, 121),
		      "os.exit"));
	/* OpenResty's: a table keyed by its build-id, run through ljrun. */
	builtin_names_match(OPENRESTY_LIB, "build/workloads/ljrun " OPENRESTY_LIB
			    " tests/workloads/lua/ffid.lua", 0);
}

/*
 * Every LuaJIT descriptor has the module check a frame's function (a
 * GCfunc by its gct, an ffid the build has) and PC (in the function's
 * code), and carry a builtin's ffid in its word, which names it without
 * reading the process: the function may be gone by then.
 */
static void frames_checked(const char *path, int32_t gct_off, int32_t sizebc_off,
			   uint8_t last_ffid, unsigned int ffid, const char *name)
{
	struct found r = detect(rt_named("luajit"), path);
	const struct vmstack_vm_desc *d = &r.f.desc;
	struct vmstack_frame f = { .kind = VMSTACK_FRAME_BUILTIN, .value = ffid };
	struct vmstack_name_buf b = { 0 };

	CHECK(r.verdict == VMSTACK_DETECT_YES);
	if (r.verdict != VMSTACK_DETECT_YES)
		return;
	CHECK((d->flags & VMSTACK_VM_F_FUNC_CHECK) && (d->flags & VMSTACK_VM_F_PC_CHECK) &&
	      (d->flags & VMSTACK_VM_F_BUILTIN_KIND));
	CHECK(d->func_check_off == gct_off && d->func_check_val == 8 &&
	      d->kind_max == last_ffid && d->pc_size_off == sizebc_off && d->pc_unit == 4);
	CHECK(vmstack_desc3_check(d) == NULL);
	CHECK(rt_named("luajit")->namer(r.f.build, -1, &f, &b) == 0 &&
	      !strcmp(b.function, name));
}

UNIT_TEST(luajit_frames_checked)
{
	frames_checked("/usr/bin/luajit", 9, 0xc, 222, 20, "pcall");
	frames_checked(OPENRESTY_LIB, 9, 0xc, 229, 99, "table.sort");
	/* 32-bit references: a smaller GC header and GCproto. */
	frames_checked("/usr/bin/tarantool", 5, 8, 202, 20, "pcall");
}

/* Two namers standing for two runtimes in one process. */
static int name_a(const void *build, int pid, const struct vmstack_frame *f,
		  struct vmstack_name_buf *out)
{
	(void)pid;
	snprintf(out->function, sizeof(out->function), "%s:%llx", (const char *)build,
		 (unsigned long long)f->value);
	return 0;
}

/* Frame @f's function, as @s names it. */
static const char *function_of(struct vmstack_process *s, const struct vmstack_frame *f,
			       char *buf, size_t len)
{
	struct vmstack_name n;

	vmstack_process_name(s, f, NULL, &n, buf, len);
	return n.function;
}

/* Each VM's frames get the names of the runtime that produced them. */
UNIT_TEST(vm_namers_per_vm)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	struct vmstack_vm_namer a = { name_a, NULL, "first", false, { 0 } },
				b = { name_a, NULL, "second", false, { 0 } };
	struct vmstack_frame f0 = { .kind = VMSTACK_FRAME_SCRIPT, .value = 0x10, .vm = 0 };
	struct vmstack_frame f1 = f0;
	char buf[64];

	f1.vm = 1;
	vmstack_process_set_vm_namer(s, 0, &a);
	vmstack_process_set_vm_namer(s, 1, &b);
	vmstack_process_note_vm(s, &f0, NULL);
	vmstack_process_note_vm(s, &f1, NULL);
	CHECK(!strcmp(function_of(s, &f0, buf, sizeof(buf)), "first:10"));
	CHECK(!strcmp(function_of(s, &f1, buf, sizeof(buf)), "second:10"));
	vmstack_process_free(s);
}

/* A call-site namer: the caller at PC 0x40 calls its callee "callee". */
static int site_a(const void *build, int pid, const struct vmstack_frame *callee,
		  const struct vmstack_frame *caller, char *out, size_t len)
{
	(void)build, (void)pid, (void)callee;
	if (caller->pc != 0x40)
		return -1;
	snprintf(out, len, "callee");
	return 0;
}

/*
 * A frame its caller names is that name at its own line; the same frame
 * under another call, or with no VM frame below it, keeps its own name.
 * The frames come from a stack: vmstack_frames_caller() finds the caller.
 */
UNIT_TEST(vm_call_site_names)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	struct vmstack_vm_namer a = { name_a, site_a, "own", true, { 0 } };
	const uint64_t ips[] = {
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x10), 0x100,
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x20), 0x40,
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x10), 0x100,
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x20), 0x44,
		0x401000,
	};
	struct vmstack_frame_iter it;
	struct vmstack_frame f, caller;
	const char *want[] = { "callee", "own:20", "own:10", "own:20", NULL };
	struct vmstack_name n;
	char buf[64];
	int k;

	vmstack_process_set_vm_namer(s, 0, &a);
	for (k = 0; k < 2; k++) {	/* note at intake, then name at output */
		int i = 0;

		vmstack_frames_start(&it, ips, 0, sizeof(ips) / sizeof(ips[0]), 0);
		while (vmstack_frames_next(&it, &f) && f.kind == VMSTACK_FRAME_SCRIPT) {
			const struct vmstack_frame *c = vmstack_frames_caller(&it, &f, &caller, NULL);

			if (!k) {
				vmstack_process_note_vm(s, &f, c);
				continue;
			}
			vmstack_process_name(s, &f, c, &n, buf, sizeof(buf));
			CHECK(want[i] && !strcmp(n.function, want[i]));
			CHECK(!!(n.flags & VMSTACK_NAME_AT_LINE) == (i == 0));
			i++;
		}
		CHECK(!k || i == 4);
	}
	vmstack_process_free(s);
}

/* The caller vmstack_frames_caller() gives the first frame of @ips, or NULL. */
static const struct vmstack_frame *first_frame_caller(const uint64_t *ips, size_t n,
						       const struct vmstack_vm_across *across,
						       struct vmstack_frame *caller)
{
	struct vmstack_frame_iter it;
	struct vmstack_frame f;

	vmstack_frames_start(&it, ips, 0, n, 0);
	CHECK(vmstack_frames_next(&it, &f) && f.kind == VMSTACK_FRAME_SCRIPT);
	return vmstack_frames_caller(&it, &f, caller, across);
}

/*
 * Across native frames (a metamethod the VM called for its caller's
 * instruction): a marked script frame's caller is the next script frame
 * past native ones, but not past a native frame in the stop range (Lua's
 * lua_resume: beyond it are the resuming thread's frames), nor for a
 * frame not marked (or a tail call).
 */
UNIT_TEST(vm_frames_caller_across)
{
	const struct vmstack_vm_across across = { 3, 2, 0x402000, 0x402100 };
	struct vmstack_vm_across none = across;
	uint64_t ips[] = {
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x10), 0x102,	/* marked: pc & 3 == 2 */
		0x401000, 0x401800,
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x20), 0x40,
		0x400100,
	};
	const size_t n = sizeof(ips) / sizeof(ips[0]);
	const struct vmstack_frame *c;
	struct vmstack_frame caller;

	c = first_frame_caller(ips, n, &across, &caller);
	CHECK(c && c->kind == VMSTACK_FRAME_SCRIPT && c->value == 0x20 && c->pc == 0x40);
	CHECK(!first_frame_caller(ips, n, NULL, &caller));
	/* A return address into the stop range between them (its end: a call at its last byte). */
	ips[3] = 0x402050;
	CHECK(!first_frame_caller(ips, n, &across, &caller));
	ips[3] = 0x402100;
	CHECK(!first_frame_caller(ips, n, &across, &caller));
	/* One at its start returns from the function before it. */
	ips[3] = 0x402000;
	CHECK(first_frame_caller(ips, n, &across, &caller));
	/* No stop range (a recording's corrupt line): nothing across. */
	none.stop_hi = none.stop_lo;
	CHECK(!first_frame_caller(ips, n, &none, &caller));
	/* Not marked, or marked as a tail call too. */
	ips[3] = 0x401800;
	ips[1] = 0x100;
	CHECK(!first_frame_caller(ips, n, &across, &caller));
	ips[1] = 0x103;
	CHECK(!first_frame_caller(ips, n, &across, &caller));
}
