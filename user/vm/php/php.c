// SPDX-License-Identifier: GPL-2.0
/*
 * PHP 8.2 on x86-64, in php8.2 (cli, fpm, cgi: any file of the engine
 * exporting execute_ex and executor_globals): find its interpreter loop,
 * hand the module the program that walks its frames (php_prog.c), name
 * them: Class::method, or the function's name, {main} for a script's top
 * level, with the file and the line of the frame's current opline.
 *
 * A build is known by the version it carries (php_layout.c), and checked
 * against its own code before anything is uploaded: the structure of
 * executor_globals by the symbol's size, the offsets of
 * current_execute_data, func, prev_execute_data and scope by the code of
 * zend_get_executed_scope, and the HYBRID VM's registers by execute_ex's
 * prologue; then against the running process where there is one. Only
 * non-thread-safe builds have executor_globals as a global: a ZTS build is
 * named and left native-only, as is a process whose opcache JIT is on
 * (its compiled code has no unwind rules, and its frames do not pass
 * through execute_ex).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "file.h"
#include "util.h"
#include "vm/cold_part.h"
#include "vm/php/php.h"
#include "vm/runtime.h"

/* A build as found: its layout and name, kept for the recording (namers hold it). */
struct php_build {
	const struct php_layout *L;
	char name[40];
};

#define PHP_BUILDS_MAX 8
static struct php_build php_builds[PHP_BUILDS_MAX];
static unsigned int php_nbuilds;

/* The first @len (<= 256) bytes of code at @vaddr, or -1. */
static int code_at(Elf *elf, uint64_t vaddr, uint64_t size, unsigned char *buf, size_t len)
{
	if (size < len)
		len = size;
	return len < 16 || vmstack_elf_read(elf, vaddr, buf, len) ? -1 : (int)len;
}

/*
 * zend_get_executed_scope walks the frames as the program does: "lea
 * executor_globals(%rip)", "mov current_execute_data(%reg)", then loads
 * of func, scope and prev_execute_data as 8-bit displacements.
 */
static int scope_code_agrees(const struct php_layout *L, Elf *elf, uint64_t eg)
{
	unsigned char p[64];
	GElf_Sym s;
	int32_t rel, disp;
	int n, i, seen = 0;

	if (vmstack_elf_symbol(elf, "zend_get_executed_scope", &s) ||
	    (n = code_at(elf, s.st_value, s.st_size, p, sizeof(p))) < 14)
		return 0;
	memcpy(&rel, p + 3, 4);
	memcpy(&disp, p + 10, 4);
	if (p[0] != 0x48 || p[1] != 0x8d || (p[2] & 0xc7) != 0x05 ||
	    s.st_value + 7 + (int64_t)rel != eg ||
	    p[7] != 0x48 || p[8] != 0x8b || (p[9] & 0xc0) != 0x80 ||
	    disp != L->eg_current_execute_data)
		return 0;
	for (i = 14; i + 4 <= n; i++) {
		if (p[i] != 0x48 || p[i + 1] != 0x8b || (p[i + 2] & 0xc0) != 0x40 ||
		    (p[i + 2] & 7) == 4)
			continue;
		seen |= (p[i + 3] == L->ex_func) | (p[i + 3] == L->ex_prev) << 1 |
			(p[i + 3] == L->fn_scope) << 2;
	}
	return seen == 7;
}

/* execute_ex's prologue: "mov %rdi,%r14" and "mov opline(%rdi),%r15" (opline at 0). */
static int keeps_hybrid_regs(const struct php_layout *L, Elf *elf, const GElf_Sym *ex)
{
	static const unsigned char rdi_to_r14[] = { 0x49, 0x89, 0xfe };
	static const unsigned char opline_to_r15[] = { 0x4c, 0x8b, 0x3f };
	unsigned char p[64];
	int n = code_at(elf, ex->st_value, ex->st_size, p, sizeof(p));

	return n > 0 && L->ex_opline == 0 && memmem(p, (size_t)n, rdi_to_r14, 3) &&
	       memmem(p, (size_t)n, opline_to_r15, 3);
}

/*
 * The process's opcache JIT buffer: executable shared memory, a mapping of
 * /dev/zero, which opcache makes executable once the JIT is on. 0 if none.
 */
static uint64_t jit_buffer(int pid)
{
	char path[64], line[512];
	struct vmstack_map m;
	uint64_t at = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!at && fgets(line, sizeof(line), f))
		if (!vmstack_map_parse(line, &m) && m.perms[2] == 'x' && m.perms[3] == 's' &&
		    !strncmp(m.path, "/dev/zero", 9))
			at = m.start;
	fclose(f);
	return at;
}

/* Tries at a snapshot of the innermost frame that did not change while read. */
#define PHP_AGREE_TRIES 20

/*
 * The running engine's innermost frame, if any, is a frame of a known
 * kind. The process runs on while it is read: a frame that returned
 * between the reads gives a function pointer out of freed memory (seen:
 * 0x556b00000004 of type 0 in a php-fpm worker mid-request), so only a
 * snapshot whose frame and function read the same again afterwards may
 * disagree; one never steady in PHP_AGREE_TRIES is not held against it.
 */
static int process_agrees(const struct php_layout *L, int pid, uint64_t eg, char *why,
			  size_t len)
{
	uint64_t ex, fn, ex2, fn2;
	unsigned int i;
	uint8_t type;

	for (i = 0; i < PHP_AGREE_TRIES; i++) {
		ex = fn = ex2 = fn2 = 0;
		type = 0;
		if (read_target(pid, eg + L->eg_current_execute_data, &ex, 8) || !ex ||
		    read_target(pid, ex + L->ex_func, &fn, 8) || !fn)
			return 1;
		if (!read_target(pid, fn + L->fn_type, &type, 1) &&
		    (type == L->fn_internal || type == L->fn_user || type == L->fn_eval))
			return 1;
		if (!read_target(pid, eg + L->eg_current_execute_data, &ex2, 8) && ex2 == ex &&
		    !read_target(pid, ex + L->ex_func, &fn2, 8) && fn2 == fn) {
			snprintf(why, len,
				 "its running engine disagrees with the layout (frame 0x%" PRIx64
				 ", function 0x%" PRIx64 " of type %u)", ex, fn, type);
			return 0;
		}
	}
	return 1;
}

static const struct php_build *php_build_of(const struct php_layout *L, const char ver[24])
{
	unsigned int i;

	for (i = 0; i < php_nbuilds; i++)
		if (php_builds[i].L == L && !strcmp(php_builds[i].name + 4, ver))
			return &php_builds[i];
	if (php_nbuilds == PHP_BUILDS_MAX)
		return NULL;
	php_builds[php_nbuilds].L = L;
	snprintf(php_builds[php_nbuilds].name, sizeof(php_builds[0].name), "PHP %s", ver);
	return &php_builds[php_nbuilds++];
}

static enum vmstack_detect php_detect(const struct vmstack_map *m, int pid,
				      struct vmstack_vm_found *f, char *why, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	struct vmstack_vm_desc4 *d = &f->desc4;
	const struct php_layout *L;
	const struct php_build *b;
	static struct vm_prog p;	/* 5 KB: not on the stack */
	uint64_t lo, bias, cold_lo, cold_hi, jit;
	GElf_Sym ex, hook, eg;
	const char *err;
	char ver[24];

	if (!elf || vmstack_elf_symbol(elf, "execute_ex", &ex) ||
	    vmstack_elf_symbol(elf, "zend_execute_ex", &hook) ||
	    vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	if (ex.st_value < lo || ex.st_value + ex.st_size > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	if (php_file_version(elf, ver, sizeof(ver))) {
		snprintf(why, len, "a Zend engine without PHP's version string");
		return VMSTACK_DETECT_UNKNOWN;
	}
	L = php_layout_of(ver);
	if (!L) {
		snprintf(why, len, "PHP %s, a version vmstack does not know", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (vmstack_elf_symbol(elf, "executor_globals", &eg)) {
		snprintf(why, len, "PHP %s built thread-safe (ZTS: no executor_globals); only NTS builds are walked",
			 ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (eg.st_size != L->eg_size || !scope_code_agrees(L, elf, eg.st_value)) {
		snprintf(why, len, "PHP %s whose executor_globals (%" PRIu64 " bytes) or "
			 "zend_get_executed_scope's code disagrees with the %sx layout",
			 ver, (uint64_t)eg.st_size, L->version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (!keeps_hybrid_regs(L, elf, &ex)) {
		snprintf(why, len, "PHP %s whose execute_ex does not keep execute_data in r14 and "
			 "the opline in r15 (not the HYBRID VM vmstack knows)", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	bias = m->start - lo;
	if (pid > 0 && (jit = jit_buffer(pid))) {
		snprintf(why, len, "PHP %s with the opcache JIT on (its code at 0x%" PRIx64
			 "): compiled PHP code is not walked; run with opcache.jit=off to see PHP frames",
			 ver, jit);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (pid > 0 && !process_agrees(L, pid, eg.st_value + bias, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	b = php_build_of(L, ver);
	if (!b) {
		snprintf(why, len, "more than %d PHP versions in one recording", PHP_BUILDS_MAX);
		return VMSTACK_DETECT_UNKNOWN;
	}
	php_prog(&p, L, eg.st_value + bias);
	err = vm_prog_end_loop(&p, d, ex.st_value + bias, ex.st_value + ex.st_size + bias);
	if (err) {
		snprintf(why, len, "PHP %s: its program does not assemble: %s", ver, err);
		return VMSTACK_DETECT_UNKNOWN;
	}
	/* execute_ex.cold: its unlikely paths, in its native frame. */
	if (!vmstack_cold_part(elf, &ex, &cold_lo, &cold_hi) && cold_lo >= lo &&
	    cold_hi <= lo + (m->end - m->start)) {
		d->ranges[1].start = cold_lo + bias;
		d->ranges[1].end = cold_hi + bias;
	}
	f->prog = true;
	f->build = b;
	f->build_name = b->name;
	return VMSTACK_DETECT_YES;
}

/* A zend_string's text in @buf, cut to fit; 0, or -1. */
static int read_zstr(const struct php_layout *L, int pid, uint64_t s, char *buf, size_t len)
{
	uint64_t n;

	if (!s || read_target(pid, s + L->str_len, &n, 8))
		return -1;
	if (n >= len)
		n = len - 1;
	if (n && read_target(pid, s + L->str_val, buf, n))
		return -1;
	buf[n] = 0;
	return 0;
}

/*
 * The zend_function that is the frame's value: "Class::method", or
 * "function", or "{main}" (a script's or eval's top level, which has no
 * name), in the op_array's file, at the line of the frame's opline when
 * it is one of the function's own, else at the function's first line.
 */
static int php_name(const void *build, int pid, const struct vmstack_frame *f,
		    struct vmstack_name_buf *out)
{
	const struct php_build *b = build;
	const struct php_layout *L;
	uint64_t fn = f->value, name, scope, cname, file, ops;
	uint32_t last, first, line;
	char method[120], class[120];
	uint8_t type;

	if (!b || f->kind != VMSTACK_FRAME_SCRIPT)
		return -1;
	L = b->L;
	if (read_target(pid, fn + L->fn_type, &type, 1) ||
	    (type != L->fn_user && type != L->fn_eval) ||
	    read_target(pid, fn + L->fn_name, &name, 8) ||
	    read_target(pid, fn + L->fn_scope, &scope, 8) ||
	    read_target(pid, fn + L->op_filename, &file, 8) ||
	    read_target(pid, fn + L->op_opcodes, &ops, 8) ||
	    read_target(pid, fn + L->op_last, &last, 4) ||
	    read_target(pid, fn + L->op_line_start, &first, 4) ||
	    read_zstr(L, pid, file, out->file, sizeof(out->file)))
		return -1;
	if (!name)
		snprintf(out->function, sizeof(out->function), "{main}");
	else if (read_zstr(L, pid, name, method, sizeof(method)))
		return -1;
	else if (scope && !read_target(pid, scope + L->ce_name, &cname, 8) &&
		 !read_zstr(L, pid, cname, class, sizeof(class)))
		snprintf(out->function, sizeof(out->function), "%s::%s", class, method);
	else
		snprintf(out->function, sizeof(out->function), "%s", method);
	line = first;
	if (f->pc >= ops && f->pc < ops + (uint64_t)last * (uint64_t)L->opc_size &&
	    !((f->pc - ops) % (uint64_t)L->opc_size) &&
	    read_target(pid, f->pc + L->opc_lineno, &line, 4))
		line = first;
	out->line = line;
	out->start_line = first;
	out->flags = VMSTACK_NAME_AT_LINE;
	return 0;
}

const struct vmstack_runtime vmstack_rt_php = {
	.name = "php",
	.label = "PHP",
	.help = "PHP 8.2 in a non-thread-safe build (Debian's php8.2; PHP frames with their current line; not with the opcache JIT on)",
	.detect = php_detect,
	.namer = php_name,
	.names_by_pc = true,
};
