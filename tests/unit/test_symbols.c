// SPDX-License-Identifier: GPL-2.0
/*
 * Naming against this very process: the addresses of functions we
 * know must come back as their names, through /proc/self/maps and the ELF
 * file (a PIE: the file-offset arithmetic is exercised) and a shared
 * library (libc).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unwind/cfi.h"
#include "needed.h"
#include "process.h"
#include "symtab.h"
#include "unit.h"
#include "user_names.h"

__attribute__((noinline)) int unit_known_function(int x)
{
	return x * 3 + 1;
}

UNIT_TEST(symbols_of_self_exe_and_libc)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	uint64_t addr = (uint64_t)(uintptr_t)&unit_known_function;
	char buf[256];

	CHECK(vmstack_process_refresh(s) > 0);
	CHECK(!strcmp(user_name(s, addr, 0, buf, sizeof(buf)),
		      "unit_known_function"));
	CHECK(!strcmp(user_name(s, addr + 4, 0, buf, sizeof(buf)),
		      "unit_known_function"));
	/* A return address right after the function is still its call. */
	CHECK(!strcmp(user_name(s, addr + 1, 1, buf, sizeof(buf)),
		      "unit_known_function"));
	/* libc exports qsort under that name in .dynsym. */
	addr = (uint64_t)(uintptr_t)&qsort;
	CHECK(!strcmp(user_name(s, addr, 0, buf, sizeof(buf)), "qsort") ||
	      strstr(buf, "qsort"));
	CHECK(!strcmp(user_name(s, 8, 0, buf, sizeof(buf)), "[unknown]"));
	vmstack_process_free(s);
}

/*
 * A process that maps many files (Tarantool, a dlopen churn): every
 * mapping's table stays valid as more files are read. 100 paths (links
 * to one file) give 100 tables; the first mapping is named afterwards.
 */
UNIT_TEST(symbols_of_many_files)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	char dir[] = "/tmp/vmstack-unit-XXXXXX", path[128], *maps = NULL, buf[256];
	const uint64_t pcallk = 0xadc0;	/* lua_pcallk in /usr/bin/lua5.4 */
	size_t len = 0;
	FILE *f;
	int i;

	CHECK(mkdtemp(dir) != NULL);
	f = open_memstream(&maps, &len);
	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		CHECK(!symlink("/usr/bin/lua5.4", path));
		fprintf(f, "%llx-%llx r-xp 00000000 00:00 %d %s\n",
			0x10000000ULL * (i + 1), 0x10000000ULL * (i + 1) + 0x100000, 1000 + i, path);
	}
	fclose(f);
	f = fmemopen(maps, len, "r");
	CHECK(vmstack_process_add_maps(s, f) == 100);
	fclose(f);
	CHECK(!strcmp(user_name(s, 0x10000000ULL + pcallk, 0, buf, sizeof(buf)),
		      "lua_pcallk"));
	CHECK(!strcmp(user_name(s, 0x10000000ULL * 100 + pcallk, 0, buf,
				 sizeof(buf)), "lua_pcallk"));
	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
		unlink(path);
	}
	rmdir(dir);
	free(maps);
	vmstack_process_free(s);
}

UNIT_TEST(symtab_perf_map_and_kallsyms)
{
	char map[] = "/tmp/vmstack-unit-XXXXXX";
	struct vmstack_symtab t = { 0 };
	const struct vmstack_sym *sym;
	FILE *f;
	int fd;

	fd = mkstemp(map);
	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "7f0000001000 100 TRACE_3::app.lua:10\n"
		   "7f0000000000 20 lua_fn with spaces\n"
		   "not a line\n");
	fclose(f);
	CHECK(!vmstack_symtab_load_perf_map(&t, map));
	sym = vmstack_symtab_find(&t, 0x7f0000001080ULL);
	CHECK(sym && !strcmp(sym->name, "TRACE_3::app.lua:10"));
	sym = vmstack_symtab_find(&t, 0x7f0000000010ULL);
	CHECK(sym && !strcmp(sym->name, "lua_fn with spaces"));
	CHECK(!vmstack_symtab_find(&t, 0x7f0000000020ULL));	/* gap */
	CHECK(!vmstack_symtab_find(&t, 0x7f0000001100ULL));	/* past end */
	vmstack_symtab_free(&t);

	f = fopen(map, "w");
	fprintf(f, "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 t helper\n"
		   "ffffffff81000200 D some_data\n"
		   "ffffffffc0000000 t mod_fn\t[vmstack]\n");
	fclose(f);
	CHECK(!vmstack_symtab_load_kallsyms(&t, map));
	CHECK(t.n == 3);
	sym = vmstack_symtab_find(&t, 0xffffffff81000150ULL);
	CHECK(sym && !strcmp(sym->name, "helper"));
	sym = vmstack_symtab_find(&t, 0xffffffffc0000010ULL);
	CHECK(sym && !strcmp(sym->name, "mod_fn"));
	vmstack_symtab_free(&t);

	/* Unprivileged readers see only zeros: unusable, and said so. */
	f = fopen(map, "w");
	fprintf(f, "0000000000000000 T _stext\n");
	fclose(f);
	CHECK(vmstack_symtab_load_kallsyms(&t, map) == -1);
	vmstack_symtab_free(&t);
	unlink(map);
}

/* The libraries found for lua5.4 are exactly those ldd lists (as real paths). */
UNIT_TEST(needed_matches_ldd)
{
	char *libs[64], line[4096], path[4096], real[4096];
	size_t n, i, found = 0, listed = 0;
	FILE *p;

	n = vmstack_needed("/usr/bin/lua5.4", "/nonexistent:/usr/lib/x86_64-linux-gnu",
			   libs, 64);
	CHECK(n >= 3);
	p = popen("ldd /usr/bin/lua5.4", "r");
	while (p && fgets(line, sizeof(line), p)) {
		/* "name => path (address)", or "path (address)" for the loader. */
		if ((sscanf(line, " %*s => %4095s", path) != 1 &&
		     (sscanf(line, " %4095s", path) != 1 || path[0] != '/')) ||
		    !realpath(path, real))
			continue;
		listed++;
		for (i = 0; i < n; i++)
			found += !strcmp(libs[i], real);
	}
	if (p)
		pclose(p);
	CHECK(listed == n && found == n);
	for (i = 0; i < n; i++)
		free(libs[i]);
	/* Nothing found where nothing is; a missing program has none. */
	CHECK(vmstack_needed("/usr/bin/lua5.4", "/nonexistent", libs, 64) == 0);
	CHECK(vmstack_needed("/nonexistent/prog", "/usr/lib", libs, 64) == 0);
	/* The list stops at @max. */
	n = vmstack_needed("/usr/bin/lua5.4", "/usr/lib/x86_64-linux-gnu", libs, 2);
	CHECK(n == 2);
	for (i = 0; i < n; i++)
		free(libs[i]);
}

/* @path's CFI rows read directly in @a and through libdw in @b; -1 if it cannot be opened. */
static int both_readers(const char *path, struct vmstack_cfi_table *a,
			struct vmstack_cfi_table *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CHECK(!vmstack_cfi_build_direct(elf, a));
	CHECK(!vmstack_cfi_build_libdw(elf, b));
	elf_end(elf);
	close(fd);
	return 0;
}

/*
 * The rules read straight from .eh_frame are the rows libdw's path gives,
 * row for row, on files with many FDEs of every kind GCC emits (PLT
 * expressions, DRAP, signal frames in libc).
 */
UNIT_TEST(cfi_direct_as_libdw)
{
	static const char *const files[] = {
		"/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/bin/python3.11", "/usr/bin/luajit",
	};
	size_t i, k;

	elf_version(EV_CURRENT);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct vmstack_cfi_table a, b;

		if (both_readers(files[i], &a, &b))
			continue;	/* python3.11, luajit: where installed */
		CHECK(a.n > 100 && a.n == b.n && a.fdes == b.fdes &&
		      a.fallback_rows == b.fallback_rows);
		for (k = 0; k < a.n && k < b.n; k++)
			if (a.rows[k].vaddr != b.rows[k].vaddr ||
			    memcmp(&a.rows[k].rule, &b.rows[k].rule, sizeof(a.rows[k].rule))) {
				fprintf(stderr, "  %s: row %zu differs\n", files[i], k);
				unit_failed = 1;
				break;
			}
		vmstack_cfi_free(&a);
		vmstack_cfi_free(&b);
	}
}

/*
 * Each rule that falls back to the frame pointer is refused for a named
 * reason, the same from both readers (one reducer): libc's CFA off rdi
 * or rdx (its context-switching functions), python3.11's _start whose
 * return address is undefined.
 */
UNIT_TEST(cfi_refusals_named)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python3.11",
	};
	size_t i, k, sum;

	elf_version(EV_CURRENT);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct vmstack_cfi_table a, b;

		if (both_readers(files[i], &a, &b))
			continue;	/* python3.11: where installed */
		for (k = 0, sum = 0; k < VMSTACK_CFI_REFUSALS; k++)
			sum += a.refused[k];
		CHECK(a.fallback_rows > 0 && sum == a.fallback_rows &&
		      !a.refused[VMSTACK_CFI_REDUCED]);
		CHECK(!memcmp(a.refused, b.refused, sizeof(a.refused)));
		CHECK(i || a.refused[VMSTACK_CFI_CFA_REGISTER]);
		CHECK(!i || a.refused[VMSTACK_CFI_RA_ELSEWHERE]);
		vmstack_cfi_free(&a);
		vmstack_cfi_free(&b);
	}
	CHECK(!strcmp(vmstack_cfi_refusal_name(VMSTACK_CFI_CFA_EXPRESSION), "cfa-expression"));
}
