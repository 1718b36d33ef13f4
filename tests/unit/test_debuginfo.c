// SPDX-License-Identifier: GPL-2.0
/*
 * Separate debug info and source lines, each against a reference that
 * finds them by itself: gdb's minimal symbols for the names of libc's
 * addresses (libc6-dbg's debug file, by build-id), binutils' addr2line -i
 * for lines and inlined calls of a program compiled here (-O2 -g), and of
 * its stripped copy whose .gnu_debuglink names its debug file.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_facts.h"
#include "process.h"
#include "unit.h"
#include "user_names.h"

/* The return addresses of a stack, as glibc's unwinder finds them. */
struct trace {
	void *pc[64];
	int n;
};

static void *thread_trace(void *arg)
{
	struct trace *t = arg;

	t->n = backtrace(t->pc, 64);
	return NULL;
}

/* The lines of command @cmd's output, one string (malloc'd), or NULL. */
static char *run(const char *cmd)
{
	char *out = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *p = popen(cmd, "r"), *m = open_memstream(&out, &len);

	while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	fclose(m);
	if (!p || pclose(p)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Is @name a defined symbol of the file at @path (.symtab or .dynsym)? */
static int has_symbol(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY), found = 0;
	GElf_Sym sym;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	found = elf && !vmstack_elf_symbol(elf, name, &sym);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* libc's code mapping in this process: its path (static) and range. */
static const char *libc_code(uint64_t *lo, uint64_t *hi)
{
	static char path[4096];
	unsigned long long a, b;
	char line[4200], perms[8];
	const char *found = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095s", &a, &b, perms, path) == 4 &&
		    perms[2] == 'x' && strstr(path, "/libc.so.6")) {
			*lo = a;
			*hi = b;
			found = path;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The debug file libc6-dbg installs for @path, by its build-id. */
static int debug_file_installed(const char *path)
{
	char id[129], debug[256];
	int fd = open(path, O_RDONLY), ok = 0;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

	if (elf && !vmstack_elf_build_id(elf, id, sizeof(id))) {
		snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
		ok = !access(debug, R_OK);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * libc's thread start and main's caller are local functions, named only
 * by the debug file: each libc return address of a thread's stack and of
 * ours is named as gdb names it (its minimal symbols: .symtab names).
 */
UNIT_TEST(libc_named_from_debug_file)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	char cmd[8192], buf[256], *out, *line, *save = NULL;
	struct trace main_t, thr = { .n = 0 };
	const char *libc, *want[] = { "start_thread", "__libc_start_call_main" };
	uint64_t addrs[128], lo = 0, hi = 0;
	int i, n = 0, len, seen[2] = { 0, 0 };
	pthread_t th;

	CHECK(pthread_create(&th, NULL, thread_trace, &thr) == 0);
	pthread_join(th, NULL);
	main_t.n = backtrace(main_t.pc, 64);
	/* From the maps: under ASan, qsort's address is libasan's. */
	libc = libc_code(&lo, &hi);
	CHECK(libc != NULL);
	if (!libc || !debug_file_installed(libc)) {
		fprintf(stderr, "  no debug file for %s: libc6-dbg is not installed"
			" (scripts/setup installs it)\n", libc ? libc : "libc");
		unit_failed = 1;
		vmstack_process_free(s);
		return;
	}
	for (i = 0; i < 2; i++)
		CHECK(!has_symbol(libc, want[i]));
	CHECK(vmstack_process_refresh(s) > 0);
	len = snprintf(cmd, sizeof(cmd), "gdb -nx -batch");
	for (i = 0; i < main_t.n + thr.n && n < 128; i++) {
		void *pc = i < main_t.n ? main_t.pc[i] : thr.pc[i - main_t.n];
		Dl_info d;

		if ((uintptr_t)pc < lo || (uintptr_t)pc >= hi || !dladdr(pc, &d))
			continue;
		addrs[n++] = (uint64_t)(uintptr_t)pc;
		/* The call: the byte before the return address, link-time. */
		len += snprintf(cmd + len, sizeof(cmd) - len, " -ex 'info symbol 0x%" PRIx64 "'",
				(uint64_t)((uintptr_t)pc - 1 - (uintptr_t)d.dli_fbase));
	}
	snprintf(cmd + len, sizeof(cmd) - len, " %s 2>/dev/null", libc);
	out = run(cmd);
	CHECK(out != NULL);
	line = out ? strtok_r(out, "\n", &save) : NULL;
	for (i = 0; i < n && line; i++, line = strtok_r(NULL, "\n", &save)) {
		/* "NAME + OFF in section .text of FILE", or "NAME in section ..." */
		size_t k = strcspn(line, " ");

		user_name(s, addrs[i], 1, buf, sizeof(buf));
		if (strlen(buf) != k || strncmp(buf, line, k)) {
			fprintf(stderr, "  0x%" PRIx64 ": ours '%s', gdb '%s'\n", addrs[i], buf, line);
			unit_failed = 1;
		}
		seen[0] |= !strcmp(buf, want[0]);
		seen[1] |= !strcmp(buf, want[1]);
	}
	CHECK(i == n);
	CHECK(seen[0] && seen[1]);
	free(out);
	vmstack_process_free(s);
}

/* A known inlined call: inl()'s loop in outer(), both in lines.c. */
static const char inline_src[] =
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) void inl(int n)\n"
	"{\n"
	"	for (int i = 0; i < n; i++)\n"
	"		sink += i * 3;\n"
	"}\n"
	"__attribute__((noinline)) void outer(int n)\n"
	"{\n"
	"	inl(n);\n"
	"	sink += 7;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	outer(argc * 1000);\n"
	"	return 0;\n"
	"}\n";

/* Compile inline_src into @dir/lines (-O2 -g); 0 or -1. */
static int build_inline_prog(const char *dir)
{
	char path[256], cmd[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/lines.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(inline_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O2 -g -o %s/lines %s", dir, path);
	return system(cmd) ? -1 : 0;
}

/* outer()'s link-time address and size, and the file offset of its start. */
static int find_outer(const char *path, uint64_t *vaddr, uint64_t *size, uint64_t *off)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t i, nphdr;
	GElf_Sym sym;
	GElf_Phdr ph;

	if (elf && !vmstack_elf_symbol(elf, "outer", &sym) && !elf_getphdrnum(elf, &nphdr))
		for (i = 0; i < nphdr; i++)
			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    sym.st_value >= ph.p_vaddr && sym.st_value < ph.p_vaddr + ph.p_filesz) {
				*vaddr = sym.st_value;
				*size = sym.st_size;
				*off = sym.st_value - ph.p_vaddr + ph.p_offset;
				ret = 0;
			}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

#define MAP_BASE 0x10000000ULL

/* A process that maps @path at MAP_BASE from offset 0. */
static struct vmstack_process *map_file(const char *path, int inode)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	char maps[512];
	FILE *f;

	snprintf(maps, sizeof(maps), "%llx-%llx r-xp 00000000 00:00 %d %s\n",
		 MAP_BASE, MAP_BASE + 0x100000, inode, path);
	f = fmemopen(maps, strlen(maps), "r");
	vmstack_process_add_maps(s, f);
	fclose(f);
	return s;
}

/*
 * Every byte of outer() as @s names and lines it (the file it maps) against
 * addr2line -i -f -s on @ref, which has the DWARF: the frames, outermost
 * first, and their lines. Returns the number of addresses with an
 * inlined frame, or -1 on a difference.
 */
static int compare_lines(struct vmstack_process *s, const char *ref)
{
	uint64_t vaddr, size, off, a;
	char *cmd, *out, *line, *save = NULL, want[16][512];
	size_t len = 0;
	int inlined = 0, bad = 0;
	FILE *m;

	if (find_outer(ref, &vaddr, &size, &off) || !size)
		return -1;
	m = open_memstream(&cmd, &len);
	fprintf(m, "addr2line -a -i -f -s -e %s", ref);
	for (a = 0; a < size; a++)
		fprintf(m, " 0x%" PRIx64, vaddr + a);
	fclose(m);
	out = run(cmd);
	free(cmd);
	if (!out)
		return -1;
	line = strtok_r(out, "\n", &save);
	for (a = 0; a < size && line; a++) {
		struct vmstack_name parts[VMSTACK_MAX_INLINE];
		char names[VMSTACK_MAX_INLINE][600];
		size_t n = 0, i, got;

		/* "0xADDR", then (function, FILE:LINE) pairs, innermost first. */
		line = strtok_r(NULL, "\n", &save);
		while (line && strncmp(line, "0x", 2) && n < 16) {
			char *where = strtok_r(NULL, "\n", &save), *d;

			if (!where)
				break;
			/* "lines.c:5 (discriminator 3)": the line is all we name. */
			d = strstr(where, " (discriminator");
			if (d)
				*d = 0;
			if (!strcmp(where, "??:0") || !strcmp(where, "??:?") || strstr(where, ":0") ||
			    strstr(where, ":?"))
				snprintf(want[n++], sizeof(want[0]), "%s", line);
			else
				snprintf(want[n++], sizeof(want[0]), "%s (%s)", line, where);
			line = strtok_r(NULL, "\n", &save);
		}
		got = user_lines(s, MAP_BASE + off + a, parts);
		/* As collapsed stacks show them. */
		for (i = 0; i < got; i++)
			vmstack_name_text(&parts[i], names[i], sizeof(names[i]));
		inlined += n > 1;
		for (i = 0; i < n && i < got; i++) {
			/* Ours outermost first, and "(inlined)" after an inlined name. */
			char exp[600];
			const char *w = want[n - 1 - i], *paren = strstr(w, " (");

			if (i && paren)
				snprintf(exp, sizeof(exp), "%.*s (inlined)%s", (int)(paren - w), w, paren);
			else
				snprintf(exp, sizeof(exp), "%s%s", w, i && !paren ? " (inlined)" : "");
			if (strcmp(exp, names[i]))
				break;
		}
		if (got != n || i != n) {
			fprintf(stderr, "  0x%" PRIx64 ": %zu frames, addr2line %zu; frame %zu: ours '%s', want '%s'\n",
				vaddr + a, got, n, i, i < got ? names[i] : "", i < n ? want[n - 1 - i] : "");
			bad = 1;
		}
	}
	free(out);
	return bad || a != size ? -1 : inlined;
}

UNIT_TEST(lines_and_inlined_calls_as_addr2line)
{
	char dir[] = "/tmp/vmstack-unit-XXXXXX", path[256], cmd[512];
	struct vmstack_process *s;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(!build_inline_prog(dir));
	snprintf(path, sizeof(path), "%s/lines", dir);
	s = map_file(path, 1);
	CHECK(compare_lines(s, path) > 0);
	vmstack_process_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(!system(cmd));
}

/*
 * The program stripped, with a .gnu_debuglink to its debug file beside
 * it: named and lined through the link as the program itself is. A debug
 * file whose CRC is not the link's is not used.
 */
UNIT_TEST(debuglink_in_temp_dir)
{
	char dir[] = "/tmp/vmstack-unit-XXXXXX", path[256], cmd[1024], buf[256];
	struct vmstack_process *s;
	uint64_t vaddr, size, off;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(!build_inline_prog(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug lines lines.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=lines.debug lines stripped && "
		 "mkdir other && objcopy --only-keep-debug --remove-section=.comment lines other/lines.debug && "
		 "cp stripped other/stripped", dir);
	CHECK(!system(cmd));
	snprintf(path, sizeof(path), "%s/lines", dir);
	CHECK(!find_outer(path, &vaddr, &size, &off));
	snprintf(path, sizeof(path), "%s/stripped", dir);
	CHECK(!has_symbol(path, "outer"));
	s = map_file(path, 2);
	CHECK(!strcmp(user_name(s, MAP_BASE + off, 0, buf, sizeof(buf)), "outer"));
	snprintf(cmd, sizeof(cmd), "%s/lines", dir);
	CHECK(compare_lines(s, cmd) > 0);
	vmstack_process_free(s);
	/* other/lines.debug differs: its CRC is not the link's. */
	snprintf(path, sizeof(path), "%s/other/stripped", dir);
	s = map_file(path, 3);
	CHECK(strcmp(user_name(s, MAP_BASE + off, 0, buf, sizeof(buf)), "outer"));
	vmstack_process_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(!system(cmd));
}
