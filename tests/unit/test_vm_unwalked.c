// SPDX-License-Identifier: GPL-2.0
/*
 * Interpreters vmstack does not walk are recognised in the installed
 * files and named with their version: a PUC Lua of a version not walked
 * (Debian's lua5.2 with its lua_ident made 5.5's: no Lua 5.0 or 5.5 is
 * installed), pyenv's CPython 3.6 to 3.8 (where the machine has them);
 * the runtimes it walks (Lua 5.1 to 5.4: Redis's own 5.1 too; Ruby 3.1,
 * PHP 8.2, CPython 3.9 and 3.10), and plain programs, are not.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "unit.h"
#include "vm/unwalked.h"

/* What unwalked.c says of @path: its row, @what named. */
static int unwalked(const char *path, char *what, size_t len)
{
	struct vmstack_map m = { .start = 0x10000000, .end = 0x20000000 };
	struct stat st;
	int row = -2;

	*what = 0;
	CHECK(!stat(path, &st));
	m.path = (char *)path;
	m.file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	row = vmstack_vm_unwalked(&m, what, len);
	vmstack_file_put(m.file);
	return row;
}

/* Debian's lua5.2 at @out, its lua_ident saying "Lua 5.5.0"; 0 or -1. */
static int lua_as_55(const char *out)
{
	static const char was[] = "$LuaVersion: Lua 5.2.4", now[] = "$LuaVersion: Lua 5.5.0";
	FILE *in = fopen("/usr/bin/lua5.2", "r"), *f = NULL;
	static char data[1 << 20];
	size_t n = in ? fread(data, 1, sizeof(data), in) : 0;
	char *p = n ? memmem(data, n, was, sizeof(was) - 1) : NULL;
	int ret = -1;

	if (p) {
		memcpy(p, now, sizeof(now) - 1);
		f = fopen(out, "w");
		ret = f && fwrite(data, 1, n, f) == n ? 0 : -1;
	}
	if (f)
		fclose(f);
	if (in)
		fclose(in);
	return ret;
}

UNIT_TEST(vm_unwalked_named)
{
	static const char lua55[] = "build/unit-lua55";
	static const char *const not_named[] = {
		"/usr/bin/lua5.4", "/usr/lib/x86_64-linux-gnu/liblua5.4.so.0",
		"/usr/bin/lua5.1", "/usr/bin/lua5.2", "/usr/bin/lua5.3",
		"/usr/lib/x86_64-linux-gnu/liblua5.3.so.0",
		"/usr/bin/redis-check-rdb",	/* redis-server's file: Lua 5.1.5 */
		"/usr/bin/luajit", "/usr/bin/python3.11", "/usr/bin/php8.2",
		"/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1", "/bin/sh",
	};
	char what[64];
	size_t i;

	CHECK(!lua_as_55(lua55));
	CHECK(unwalked(lua55, what, sizeof(what)) >= 0);
	CHECK(!strncmp(what, "Lua 5.5.0", 9));
	unlink(lua55);
	for (i = 0; i < sizeof(not_named) / sizeof(*not_named); i++)
		CHECK(unwalked(not_named[i], what, sizeof(what)) == -1);
}

/* pyenv's CPython builds older than 3.11: by the version Py_GetVersion formats. */
UNIT_TEST(vm_unwalked_old_cpython)
{
	static const struct {
		const char *lib, *what;	/* what: NULL for one walked */
	} py[] = {
		{ "3.6.15/lib/libpython3.6m.so.1.0", "CPython 3.6.15" },
		{ "3.7.16/lib/libpython3.7m.so.1.0", "CPython 3.7.16" },
		{ "3.8.18/lib/libpython3.8.so.1.0", "CPython 3.8.18" },
		{ "3.9.18/lib/libpython3.9.so.1.0", NULL },
		{ "3.10.13/lib/libpython3.10.so.1.0", NULL },
	};
	char path[512], what[64];
	size_t i;

	for (i = 0; i < sizeof(py) / sizeof(*py); i++) {
		snprintf(path, sizeof(path), "/root/.pyenv/versions/%s", py[i].lib);
		if (access(path, R_OK)) {
			fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
			continue;
		}
		if (!py[i].what) {
			CHECK(unwalked(path, what, sizeof(what)) == -1);
			continue;
		}
		CHECK(unwalked(path, what, sizeof(what)) >= 0);
		CHECK(!strcmp(what, py[i].what));
	}
}
