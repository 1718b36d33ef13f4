// SPDX-License-Identifier: GPL-2.0
/*
 * Ruby 3.1 on x86-64, in libruby-3.1.so (Debian's ruby3.1 links it): find
 * vm_exec_core, hand the module the program that walks the thread's
 * control frames (ruby_prog.c), name them: the iseq's label ("cmp",
 * "block in run", "<main>") in its file, at the frame's current line.
 *
 * A build is known by its ruby_version, the offsets below being those of
 * Documentation/runtime-layouts.md ("Ruby 3.1.2"): read off the
 * disassembly of Debian's libruby-3.1.so.3.1.2 (3.1.7+really3.1.2-0+deb12u1;
 * it has no DWARF), with field names as of CRuby's v3_1_2, and checked on
 * live ruby3.1 processes (tests/unit/vm4_shapes/ruby31.c walks one). The
 * strings' and arrays' layouts (embedded or on the heap) are 3.1's without
 * variable-width allocation, checked by that live walk's names. Before
 * upload, each build is checked against its own code and its running VM
 * (ruby_check.c): a different build of 3.1.2 is named, not mis-walked.
 *
 * vm_exec_core is not exported: it is the function rb_vm_exec calls first
 * (a direct call to the start of an FDE of a few KB). The thread's
 * execution context is the thread-local ruby_current_ec; the module has
 * only the fs base, so its address must be a constant offset from it:
 * true for the first module of the initial static TLS block, where glibc
 * puts it at fs - roundup(memsz, align) + st_value. That holds when libruby
 * is the first library with a TLS segment the program loads (ruby3.1:
 * its first DT_NEEDED, the executable has none); a program where it is not
 * (an embedder loading other TLS libraries first, a dlopen) is named and
 * left native-only. Built with YJIT: refused, its code being unwalked.
 * vm_exec_core's prologue must keep its frame in r15 and its pc in r14,
 * which the program reads at the sampled frame.
 */
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "unwind/cfi.h"
#include "elf_facts.h"
#include "file.h"
#include "needed.h"
#include "util.h"
#include "vm/ruby/ruby.h"
#include "vm/runtime.h"

/* Ruby 3.1.2 (v3_1_2), x86-64. */
static const struct ruby_layout ruby312 = {
	.version = "3.1.2",
	.ec_vm_stack = 0, .ec_vm_stack_size = 8, .ec_cfp = 16,
	/*
	 * ec->machine.stack_start and stack_maxsize: the struct's order at
	 * v3_1_2 after thread_ptr (0x30, proven by the code), seen live: the
	 * main thread's [stack] top and 8 MiB - 4 KiB, a thread's start
	 * frame and its stack's size, a fiber's pool stack (its VM stack's
	 * address, just above) and 0x81000. ruby_check.c checks them live.
	 */
	.ec_stack_start = 0x90, .ec_stack_maxsize = 0xa0,
	.cfp_pc = 0, .cfp_iseq = 16, .cfp_ep = 32, .cfp_size = 64,
	.flag_finish = 0x20, .flag_cframe = 0x80,
	.iseq_body = 16, .body_pathobj = 64, .body_label = 80, .body_first_lineno = 88,
	.body_iseq_encoded = 8, .body_insns_info = 120, .body_insns_size = 136,
	.body_succ_index = 144, .insn_info_size = 12,
	.type_mask = 0x1f, .t_string = 0x05, .t_array = 0x07,
	.fl_noembed = 0x2000,		/* RSTRING_NOEMBED; RARRAY_EMBED_FLAG is the same bit */
	.str_embed_len_shift = 14, .str_embed_len_mask = 0x1f,
	.str_embed = 16, .str_len = 16, .str_ptr = 24,
	.ary_embed = 16, .ary_ptr = 32,
	/*
	 * For the checks (ruby_check.c). iseq_size: the layout doc's body
	 * table; magic: rb_vm_exec's mask, DUMMY the 3.1 enum's, seen live
	 * at the bottom of ruby3.1's main thread; T_IMEMO 0x1a, imemo type
	 * (flags >> 12) & 0xf (the method-entry lookup rb_profile_frames
	 * calls), iseq 7 (3.1's enum: ment is 6 there and in the code);
	 * ec->thread_ptr: rb_thread_current. th->vm and th->ec: the code
	 * that makes the VM (stores after ruby_current_vm_ptr's), th->ec
	 * and th->thread_id (pthread_self()'s) the code that starts the
	 * native thread (both not exported); vm->ractor.main_thread seen
	 * live. Each is proven again by the loops the process check closes
	 * (thread to VM, context to thread, fs base to context).
	 */
	.body_iseq_size = 4,
	.magic_mask = 0x7fff0001, .magic_dummy = 0x79990001,
	.t_imemo = 0x1a, .imemo_shift = 12, .imemo_mask = 0xf, .imemo_iseq = 7,
	.vm_main_thread = 0x28, .th_vm = 0x20, .th_ec = 0x28, .th_thread_id = 0x50,
	.ec_thread_ptr = 0x30,
};

static const struct ruby_layout *const ruby_layouts[] = { &ruby312 };

const struct ruby_layout *ruby_layout_of(const char *ver)
{
	size_t i;

	for (i = 0; i < sizeof(ruby_layouts) / sizeof(ruby_layouts[0]); i++)
		if (!strcmp(ver, ruby_layouts[i]->version))
			return ruby_layouts[i];
	return NULL;
}

/* A build as found, kept for the recording (namers hold it). */
struct ruby_build {
	const struct ruby_layout *L;
	char name[24];
};

static struct ruby_build ruby_builds[4];
static unsigned int ruby_nbuilds;

/* The file's PT_TLS: 0 and its size and alignment, or -1 if it has none. */
static int tls_segment(Elf *elf, uint64_t *memsz, uint64_t *align, uint64_t *vaddr)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_TLS) {
			*memsz = ph.p_memsz;
			*align = ph.p_align ? ph.p_align : 1;
			*vaddr = ph.p_vaddr;
			return 0;
		}
	return -1;
}

static int file_has_tls(const char *path)
{
	uint64_t a, b, c;
	int fd = open(path, O_RDONLY | O_CLOEXEC), has = 0;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

	if (e) {
		has = !tls_segment(e, &a, &b, &c);
		elf_end(e);
	}
	if (fd >= 0)
		close(fd);
	return has;
}

/*
 * Is @lib the first module of process @pid's static TLS block: the
 * executable has no TLS segment, and of the libraries it loads, breadth
 * first, @lib is the first that has one?
 */
static int first_tls_module(int pid, const char *lib)
{
	static const char dirs[] = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
				   "/lib64:/usr/lib64:/lib:/usr/lib";
	char exe[64], real[PATH_MAX], *libs[64];
	size_t n, i;
	int first = 0, decided = 0;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (!realpath(lib, real) || file_has_tls(exe))
		return 0;
	n = vmstack_needed(exe, dirs, libs, sizeof(libs) / sizeof(libs[0]));
	for (i = 0; i < n; i++) {
		if (!decided && !strcmp(libs[i], real)) {
			first = decided = 1;
		} else if (!decided && file_has_tls(libs[i])) {
			decided = 1;
		}
		free(libs[i]);
	}
	return first;
}

/*
 * vm_exec_core: the first direct call in rb_vm_exec to the start of an
 * FDE (a function) of at least 4 KB. 0 and its range, or -1.
 */
static int find_exec_core(Elf *elf, const GElf_Sym *exec, uint64_t *lo, uint64_t *hi)
{
	unsigned char p[512];
	size_t len = exec->st_size < sizeof(p) ? exec->st_size : sizeof(p), i;
	uint64_t s, e;
	int32_t rel;

	if (len < 16 || vmstack_elf_read(elf, exec->st_value, p, len))
		return -1;
	for (i = 0; i + 5 <= len; i++) {
		uint64_t to;

		if (p[i] != 0xe8)
			continue;
		memcpy(&rel, p + i + 1, 4);
		to = exec->st_value + i + 5 + (int64_t)rel;
		if (!vmstack_cfi_fde_range(elf, to, &s, &e) && s == to && e - s >= 4096) {
			*lo = s;
			*hi = e;
			return 0;
		}
	}
	return -1;
}

/*
 * vm_exec_core's prologue keeps the frame it runs in r15 and its pc in r14
 * (ruby_prog.c reads them at the sampled frame): "mov ec_cfp(%rdi),%r15"
 * then "mov cfp_pc(%r15),%r14".
 */
static int keeps_cfp_pc_regs(const struct ruby_layout *L, Elf *elf, uint64_t core)
{
	const unsigned char cfp_to_r15[] = { 0x4c, 0x8b, 0x7f, (unsigned char)L->ec_cfp };
	static const unsigned char pc_to_r14[] = { 0x4d, 0x8b, 0x37 };
	unsigned char p[64];

	return L->ec_cfp < 0x80 && L->cfp_pc == 0 && !vmstack_elf_read(elf, core, p, sizeof(p)) &&
	       memmem(p, sizeof(p), cfp_to_r15, sizeof(cfp_to_r15)) &&
	       memmem(p, sizeof(p), pc_to_r14, sizeof(pc_to_r14));
}

static enum vmstack_detect ruby_detect(const struct vmstack_map *m, int pid,
				       struct vmstack_vm_found *f, char *why, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	struct vmstack_vm_desc4 *d = &f->desc4;
	static struct vm_prog p;	/* 5 KB: not on the stack */
	const struct ruby_layout *L;
	struct ruby_build *b = NULL;
	uint64_t lo, core_lo, core_hi, memsz, align, tls_vaddr, bias;
	GElf_Sym exec, ec, version, yjit, vm;
	int32_t tls_ec;
	const char *err;
	char ver[16] = "";
	unsigned int i;

	if (!elf || vmstack_elf_symbol(elf, "rb_vm_exec", &exec) ||
	    vmstack_elf_symbol(elf, "ruby_current_ec", &ec) ||
	    vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	if (exec.st_value < lo || exec.st_value + exec.st_size > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	if (!vmstack_elf_symbol(elf, "ruby_version", &version) && version.st_size &&
	    version.st_size <= sizeof(ver))
		vmstack_elf_read(elf, version.st_value, ver, version.st_size);
	ver[sizeof(ver) - 1] = 0;
	L = ruby_layout_of(ver);
	if (!L) {
		snprintf(why, len, "Ruby %s, a version vmstack does not know", *ver ? ver : "(no ruby_version)");
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (!vmstack_elf_symbol(elf, "rb_yjit_enabled_p", &yjit)) {
		snprintf(why, len, "Ruby %s built with YJIT, whose code vmstack does not walk", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (find_exec_core(elf, &exec, &core_lo, &core_hi) || core_lo < lo ||
	    core_hi > lo + (m->end - m->start)) {
		snprintf(why, len, "Ruby %s without vm_exec_core where vmstack looks (rb_vm_exec's first call)",
			 ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (!ruby_code_agrees(L, elf, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	if (!keeps_cfp_pc_regs(L, elf, core_lo)) {
		snprintf(why, len, "Ruby %s whose vm_exec_core does not keep its frame in r15 and "
			 "the pc in r14 as vmstack knows", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (tls_segment(elf, &memsz, &align, &tls_vaddr) || tls_vaddr % align ||
	    ec.st_value + 8 > memsz) {
		snprintf(why, len, "Ruby %s whose ruby_current_ec is not in a TLS segment vmstack knows", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	/* glibc's first static TLS module: its block ends at the fs base. */
	if (pid > 0 && !first_tls_module(pid, m->path)) {
		snprintf(why, len, "Ruby %s in a program where libruby is not the first TLS module "
			 "(its thread's execution context is at no fixed place)", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	tls_ec = (int32_t)(ec.st_value - ((memsz + align - 1) / align) * align);
	bias = m->start - lo;
	if (vmstack_elf_symbol(elf, "ruby_current_vm_ptr", &vm)) {
		snprintf(why, len, "Ruby %s without ruby_current_vm_ptr", ver);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (pid > 0 && !ruby_process_agrees(L, pid, vm.st_value + bias, tls_ec, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	for (i = 0; i < ruby_nbuilds; i++)
		if (ruby_builds[i].L == L)
			b = &ruby_builds[i];
	if (!b) {
		if (ruby_nbuilds == sizeof(ruby_builds) / sizeof(ruby_builds[0])) {
			snprintf(why, len, "too many Ruby builds in one recording");
			return VMSTACK_DETECT_UNKNOWN;
		}
		b = &ruby_builds[ruby_nbuilds++];
		b->L = L;
		snprintf(b->name, sizeof(b->name), "Ruby %s", L->version);
	}
	ruby_prog(&p, L, tls_ec);
	err = vm_prog_end_loop(&p, d, core_lo + bias, core_hi + bias);
	if (err) {
		snprintf(why, len, "Ruby %s: its program does not assemble: %s", ver, err);
		return VMSTACK_DETECT_UNKNOWN;
	}
	f->prog = true;
	f->build = b;
	f->build_name = b->name;
	return VMSTACK_DETECT_YES;
}

/* A String's bytes in @buf, cut to fit; 0, or -1 if it is not a String. */
static int read_rstring(const struct ruby_layout *L, int pid, uint64_t s, char *buf, size_t len)
{
	uint64_t flags, n, at;

	if (!s || (s & 7) || read_target(pid, s, &flags, 8) || (flags & L->type_mask) != L->t_string)
		return -1;
	if (flags & L->fl_noembed) {
		if (read_target(pid, s + L->str_len, &n, 8) || read_target(pid, s + L->str_ptr, &at, 8))
			return -1;
	} else {
		n = flags >> L->str_embed_len_shift & L->str_embed_len_mask;
		at = s + L->str_embed;
	}
	if (n >= len)
		n = len - 1;
	if (n && read_target(pid, at, buf, n))
		return -1;
	buf[n] = 0;
	return 0;
}

/* An iseq's path: its pathobj, a String, or an Array [path, realpath]. */
static int read_path(const struct ruby_layout *L, int pid, uint64_t obj, char *buf, size_t len)
{
	uint64_t flags, first;

	if (!read_rstring(L, pid, obj, buf, len))
		return 0;
	if (!obj || (obj & 7) || read_target(pid, obj, &flags, 8) ||
	    (flags & L->type_mask) != L->t_array)
		return -1;
	if (flags & L->fl_noembed) {	/* RARRAY_EMBED_FLAG */
		if (read_target(pid, obj + L->ary_embed, &first, 8))
			return -1;
	} else if (read_target(pid, obj + L->ary_ptr, &first, 8) ||
		   read_target(pid, first, &first, 8)) {
		return -1;
	}
	return read_rstring(L, pid, first, buf, len);
}

/*
 * The rank of position @x in an iseq's succinct position index (iseq.c's
 * succ_index_table since 2.6: 54 positions as 7-bit ranks in six words,
 * then blocks of 512 as a rank, eight 9-bit ranks and eight words of
 * bits, 80 bytes each): the number of entries at positions <= @x; or -1.
 */
static int succ_rank(int pid, uint64_t table, uint64_t x)
{
	uint64_t v, small, bits;
	uint32_t rank;
	unsigned int b, i;

	if (x < 54)
		return read_target(pid, table + x / 9 * 8, &v, 8) ? -1 : (int)(v >> (x % 9 * 7) & 0x7f);
	x -= 54;
	b = (unsigned int)(x / 512);
	i = (unsigned int)(x % 512 / 64);
	table += 48 + (uint64_t)b * 80;
	if (read_target(pid, table, &rank, 4) || read_target(pid, table + 8, &small, 8) ||
	    read_target(pid, table + 16 + i * 8, &bits, 8))
		return -1;
	return (int)(rank + (i ? (small >> ((i - 1) * 9) & 0x1ff) : 0) +
		     (unsigned int)__builtin_popcountll(bits << (63 - x % 64)));
}

/*
 * The line of the instruction before @pc (pc points past the one running,
 * or at the first), from the iseq's line table; 0 if it cannot be read.
 */
static uint32_t pc_line(const struct ruby_layout *L, int pid, uint64_t body, uint64_t pc)
{
	uint64_t code, infos, table, pos;
	uint32_t n;
	int32_t line;
	int r = 1;

	if (!pc || read_target(pid, body + L->body_iseq_encoded, &code, 8) || pc < code ||
	    read_target(pid, body + L->body_insns_info, &infos, 8) ||
	    read_target(pid, body + L->body_insns_size, &n, 4) || !n || n > (1U << 24) ||
	    read_target(pid, body + L->body_succ_index, &table, 8))
		return 0;
	pos = (pc - code) / 8;
	if (pos)
		pos--;
	if (n > 1) {
		if (!table || pos > (1U << 28) || (r = succ_rank(pid, table, pos)) < 1 ||
		    (uint32_t)r > n)
			return 0;
	}
	if (read_target(pid, infos + (uint64_t)(r - 1) * (uint64_t)L->insn_info_size, &line, 4) ||
	    line < 0)
		return 0;
	return (uint32_t)line;
}

/* The iseq that is the frame's value: its label, in its file, at the frame's line. */
static int ruby_name(const void *build, int pid, const struct vmstack_frame *f,
		     struct vmstack_name_buf *out)
{
	const struct ruby_build *b = build;
	const struct ruby_layout *L;
	uint64_t body, label, path, first;

	if (!b || f->kind != VMSTACK_FRAME_SCRIPT)
		return -1;
	L = b->L;
	if (read_target(pid, f->value + L->iseq_body, &body, 8) || !body ||
	    read_target(pid, body + L->body_label, &label, 8) ||
	    read_target(pid, body + L->body_pathobj, &path, 8) ||
	    read_target(pid, body + L->body_first_lineno, &first, 8) ||
	    read_rstring(L, pid, label, out->function, sizeof(out->function)) ||
	    read_path(L, pid, path, out->file, sizeof(out->file)))
		return -1;
	/* A Fixnum: (n << 1) | 1. */
	out->start_line = (first & 1) ? (uint32_t)(first >> 1) : 0;
	out->line = pc_line(L, pid, body, f->pc);
	if (!out->line)
		out->line = out->start_line;
	out->flags = VMSTACK_NAME_AT_LINE;
	return 0;
}

const struct vmstack_runtime vmstack_rt_ruby = {
	.name = "ruby",
	.label = "Ruby",
	.help = "Ruby 3.1.2 in libruby-3.1.so linked by its program (Debian's ruby3.1; methods and blocks at their current line)",
	.detect = ruby_detect,
	.namer = ruby_name,
	.names_by_pc = true,
};
