// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.1, 5.2 and 5.3 found by what the files are (lua_ident's version,
 * the loop below the exported API, its first instructions), in the
 * installed files: Debian's lua5.1, lua5.2, lua5.3 and liblua5.3.so.0
 * (HAProxy's), and
 * Redis 7.0's own 5.1 inside redis-server (its file is redis-check-rdb).
 * A file not installed is skipped with a message.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "unit.h"
#include "vm/runtime.h"

#define MAP_START 0x10000000ULL

struct lua_found {
	enum vmstack_detect verdict;
	struct vmstack_vm_found f;
	char why[256];
	uint64_t lo, hi;	/* the loop's code, from the mapping's start */
};

/* What runtime @name says of @path mapped whole at MAP_START; -1: not installed. */
static int lua_detect(const char *name, const char *path, struct lua_found *r)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(name);
	struct vmstack_map m = { .start = MAP_START, .end = MAP_START + 0x10000000 };
	struct stat st;

	memset(r, 0, sizeof(*r));
	CHECK(rt != NULL);
	if (!rt || stat(path, &st)) {
		fprintf(stderr, "  %s: not installed, skipped\n", path);
		return -1;
	}
	m.path = (char *)path;
	m.file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	r->verdict = rt->detect(&m, 0, &r->f, r->why, sizeof(r->why));
	if (r->verdict == VMSTACK_DETECT_YES) {
		CHECK(r->f.prog);
		r->lo = r->f.desc4.ranges[0].start - MAP_START;
		r->hi = r->f.desc4.ranges[0].end - MAP_START;
	}
	vmstack_file_put(m.file);
	return 0;
}

/* A copy of @path at @out with its first @old (@len bytes) made @new; 0 or -1. */
static int patched(const char *path, const void *old, const void *new, size_t len,
		   const char *out)
{
	FILE *in = fopen(path, "r"), *f;
	char *data = NULL, *p = NULL;
	long size = -1;
	int ret = -1;

	if (in && !fseek(in, 0, SEEK_END))
		size = ftell(in);
	if (size > 0 && !fseek(in, 0, SEEK_SET) && (data = malloc((size_t)size)) &&
	    fread(data, 1, (size_t)size, in) == (size_t)size)
		p = memmem(data, (size_t)size, old, len);
	if (p) {
		memcpy(p, new, len);
		f = fopen(out, "w");
		if (f && fwrite(data, 1, (size_t)size, f) == (size_t)size)
			ret = 0;
		if (f)
			fclose(f);
	}
	if (in)
		fclose(in);
	free(data);
	return ret;
}

/* The loop's range in Debian 12's files (objdump: the callee of luaD_call). */
UNIT_TEST(lua53_files_found)
{
	static const struct {
		const char *path;
		uint64_t lo, hi;
	} files[] = {
		{ "/usr/bin/lua5.3", 0x19240, 0x1b5be },
		{ "/usr/lib/x86_64-linux-gnu/liblua5.3.so.0", 0x1c120, 0x1e49e },
	};
	struct lua_found r;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		if (lua_detect("lua5.3", files[i].path, &r))
			continue;
		CHECK(r.verdict == VMSTACK_DETECT_YES);
		CHECK(r.lo == files[i].lo && r.hi == files[i].hi);
		CHECK(r.f.build_name && !strcmp(r.f.build_name, "Lua 5.3.6"));
		/* The program starts from rbp: ci. */
		CHECK(r.f.desc4.prog[0].op == VMSTACK_VM4_MOV &&
		      r.f.desc4.prog[0].regs == VMSTACK_VM4_REGS_OF(8, 2));
	}
	/* Not 5.3: not claimed. */
	if (!lua_detect("lua5.3", "/usr/bin/lua5.4", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
	if (!lua_detect("lua5.3", "/usr/bin/lua5.1", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
}

/* A 5.3 of another version, or whose loop does not start as 5.3.6's does: named, not walked. */
UNIT_TEST(lua53_unknown_refused)
{
	/* orw $0x8,0x42(%rbp): CIST_FRESH set on ci; made 0x44 */
	static const unsigned char fresh[] = { 0x66, 0x83, 0x4d, 0x42, 0x08 };
	static const unsigned char other[] = { 0x66, 0x83, 0x4d, 0x44, 0x08 };
	struct lua_found r;

	if (access("/usr/bin/lua5.3", R_OK)) {
		fprintf(stderr, "  /usr/bin/lua5.3: not installed, skipped\n");
		return;
	}
	CHECK(!patched("/usr/bin/lua5.3", "$LuaVersion: Lua 5.3.6", "$LuaVersion: Lua 5.3.9",
		       22, "build/unit-lua539"));
	if (!lua_detect("lua5.3", "build/unit-lua539", &r))
		CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "Lua 5.3.9"));
	unlink("build/unit-lua539");
	CHECK(!patched("/usr/bin/lua5.3", fresh, other, sizeof(fresh), "build/unit-lua53-loop"));
	if (!lua_detect("lua5.3", "build/unit-lua53-loop", &r))
		CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "luaV_execute"));
	unlink("build/unit-lua53-loop");
}

/*
 * Debian's lua5.1 keeps L in rbp; Redis 7.0's loop in rbx, which its
 * prologue's pushes and frame put at sp + 0x58 for luaD_call's L.
 */
UNIT_TEST(lua51_files_found)
{
	static const struct {
		const char *path;
		uint64_t lo, hi;
		int32_t sp_off;	/* 0: L in rbp */
	} files[] = {
		{ "/usr/bin/lua5.1", 0x16720, 0x17e4a, 0 },
		{ "/usr/lib/x86_64-linux-gnu/liblua5.1.so.0", 0, 0, 0 },
		{ "/usr/bin/redis-check-rdb", 0x1613d0, 0x162a45, 0x58 },	/* redis-server */
	};
	struct lua_found r;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		const struct vmstack_vm_insn *first = &r.f.desc4.prog[0];

		if (lua_detect("lua5.1", files[i].path, &r))
			continue;
		CHECK(r.verdict == VMSTACK_DETECT_YES);
		CHECK(!files[i].lo || (r.lo == files[i].lo && r.hi == files[i].hi));
		CHECK(r.f.build_name && !strcmp(r.f.build_name, "Lua 5.1.5"));
		if (files[i].sp_off)
			CHECK(first->op == VMSTACK_VM4_LD64 && first->imm == files[i].sp_off &&
			      first->regs == VMSTACK_VM4_REGS_OF(3, 1));
		else
			CHECK(first->op == VMSTACK_VM4_MOV &&
			      first->regs == VMSTACK_VM4_REGS_OF(3, 2));
	}
	if (!lua_detect("lua5.1", "/usr/bin/lua5.3", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
	if (!lua_detect("lua5.1", "/usr/bin/lua5.2", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
}

/* Debian's lua5.2 (its Lua linked in): L in rbp, the program's first move. */
UNIT_TEST(lua52_files_found)
{
	struct lua_found r;

	if (lua_detect("lua5.2", "/usr/bin/lua5.2", &r))
		return;
	CHECK(r.verdict == VMSTACK_DETECT_YES);
	CHECK(r.lo == 0x17960 && r.hi == 0x190d7);
	CHECK(r.f.build_name && !strcmp(r.f.build_name, "Lua 5.2.4"));
	CHECK(r.f.desc4.prog[0].op == VMSTACK_VM4_MOV &&
	      r.f.desc4.prog[0].regs == VMSTACK_VM4_REGS_OF(3, 2));
	/* Not 5.2: not claimed. */
	if (!lua_detect("lua5.2", "/usr/bin/lua5.3", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
	if (!lua_detect("lua5.2", "/usr/bin/lua5.1", &r))
		CHECK(r.verdict == VMSTACK_DETECT_NO);
}

/* A 5.2 of another version, or whose loop does not keep L in rbp: named, not walked. */
UNIT_TEST(lua52_unknown_refused)
{
	/* The loop's OP_CALL: mov 0x20(%rbp),%r13 -> mov 0x20(%rbx),%r13, before orb $4,0x22(%r13) */
	static const unsigned char rbp[] = { 0x4c, 0x8b, 0x6d, 0x20, 0x41, 0x80, 0x4d, 0x22, 0x04 };
	static const unsigned char rbx[] = { 0x4c, 0x8b, 0x6b, 0x20, 0x41, 0x80, 0x4d, 0x22, 0x04 };
	struct lua_found r;

	if (access("/usr/bin/lua5.2", R_OK)) {
		fprintf(stderr, "  /usr/bin/lua5.2: not installed, skipped\n");
		return;
	}
	CHECK(!patched("/usr/bin/lua5.2", "$LuaVersion: Lua 5.2.4", "$LuaVersion: Lua 5.2.9",
		       22, "build/unit-lua529"));
	if (!lua_detect("lua5.2", "build/unit-lua529", &r))
		CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "Lua 5.2.9"));
	unlink("build/unit-lua529");
	CHECK(!patched("/usr/bin/lua5.2", rbp, rbx, sizeof(rbp), "build/unit-lua52-loop"));
	if (!lua_detect("lua5.2", "build/unit-lua52-loop", &r))
		CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "luaV_execute"));
	unlink("build/unit-lua52-loop");
}

/* A 5.1 whose loop keeps L where vmstack does not look: named, not walked. */
UNIT_TEST(lua51_unknown_refused)
{
	/* Debian's loop: mov %rdi,%rbp -> mov %rdi,%r12 (49 89 fc), before sub $0x58,%rsp */
	static const unsigned char to_rbp[] = { 0x55, 0x48, 0x89, 0xfd, 0x53, 0x48, 0x83, 0xec, 0x58 };
	static const unsigned char to_r12[] = { 0x55, 0x49, 0x89, 0xfc, 0x53, 0x48, 0x83, 0xec, 0x58 };
	struct lua_found r;

	if (access("/usr/bin/lua5.1", R_OK)) {
		fprintf(stderr, "  /usr/bin/lua5.1: not installed, skipped\n");
		return;
	}
	CHECK(!patched("/usr/bin/lua5.1", to_rbp, to_r12, sizeof(to_rbp), "build/unit-lua51-loop"));
	if (!lua_detect("lua5.1", "build/unit-lua51-loop", &r))
		CHECK(r.verdict == VMSTACK_DETECT_UNKNOWN && strstr(r.why, "luaV_execute"));
	unlink("build/unit-lua51-loop");
}
