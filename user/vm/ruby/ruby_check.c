// SPDX-License-Identifier: GPL-2.0
/*
 * A Ruby layout (ruby.c's table, keyed by ruby_version only) checked
 * against the build before its program is uploaded: a rebuild of the same
 * version with other options could move the fields the program reads.
 *
 * - The file's own code: rb_profile_frames (exported; it walks the same
 *   frames the program walks) loads the execution context's vm_stack,
 *   vm_stack_size (in VALUEs: scaled by 8) and cfp, tests each frame's
 *   ep[0] for VM_FRAME_FLAG_CFRAME, loads its iseq and pc and steps to the
 *   next frame by the frame's size; rb_iseq_label and rb_iseq_first_lineno
 *   load the iseq's body, then its label and first line.
 * - The running process, where there is one: from ruby_current_vm_ptr to
 *   the main thread and its execution context and back again; that
 *   thread's ruby_current_ec, at its fs base (its pthread_t) plus the
 *   offset the program uses, is the same context; its frames lie in its VM
 *   stack, the bottom one the thread's dummy frame; its innermost Ruby
 *   frame runs an iseq, its pc inside that iseq's code.
 *
 * The code is read with a few instruction forms only (64-bit loads with
 * no index, lea with a scaled index, add of an 8-bit immediate, testb of
 * a register's target), matched at every byte: their registers must
 * chain as the walk does, so stray bytes do not pass by chance.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elf_facts.h"
#include "maps.h"
#include "util.h"
#include "vm/ruby/ruby.h"

/* "mov DISP(%base),%dst" on 64 bits. */
struct load {
	int base, dst;
	int32_t disp;
};

/* A load at @p (base not rsp/r12, not rip-relative): its length, or 0. */
static size_t load_at(const unsigned char *p, size_t left, struct load *l)
{
	unsigned int mod, rm;

	if (left < 3 || (p[0] & 0xfa) != 0x48 || p[1] != 0x8b)
		return 0;
	mod = p[2] >> 6;
	rm = p[2] & 7;
	if (mod == 3 || rm == 4 || (mod == 0 && rm == 5))
		return 0;
	l->base = (int)(rm | (p[0] & 1u) << 3);
	l->dst = (int)((p[2] >> 3 & 7) | (p[0] & 4u) << 1);
	if (mod == 0) {
		l->disp = 0;
		return 3;
	}
	if (mod == 1) {
		if (left < 4)
			return 0;
		l->disp = (int8_t)p[3];
		return 4;
	}
	if (left < 7)
		return 0;
	memcpy(&l->disp, p + 3, 4);
	return 7;
}

/* The first load of @disp(%@base) at or after @from: its offset and *@dst, or -1. */
static long find_load(const unsigned char *p, size_t n, size_t from, int base, int32_t disp,
		      int *dst)
{
	struct load l;
	size_t i;

	for (i = from; i < n; i++)
		if (load_at(p + i, n - i, &l) && l.base == base && l.disp == disp) {
			if (dst)
				*dst = l.dst;
			return (long)i;
		}
	return -1;
}

/* "lea (%base,%index,1 << @scale),%any" anywhere in @p. */
static int has_lea_scaled(const unsigned char *p, size_t n, int base, int index, unsigned int scale)
{
	unsigned char rex = (unsigned char)(0x48 | (index >> 3) << 1 | base >> 3);
	unsigned char sib = (unsigned char)(scale << 6 | (index & 7) << 3 | (base & 7));
	size_t i;

	if ((base & 7) == 5)
		return 0;	/* no base without a displacement */
	for (i = 0; i + 4 <= n; i++)
		if ((p[i] & 0xfb) == rex && p[i + 1] == 0x8d && (p[i + 2] & 0xc7) == 0x04 &&
		    p[i + 3] == sib)
			return 1;
	return 0;
}

/* "add $@imm,%reg" (8-bit immediate) anywhere in @p. */
static int has_add_imm8(const unsigned char *p, size_t n, int reg, int32_t imm)
{
	size_t i;

	if (imm < 0 || imm > 127)
		return 0;
	for (i = 0; i + 4 <= n; i++)
		if (p[i] == (0x48 | reg >> 3) && p[i + 1] == 0x83 &&
		    p[i + 2] == (0xc0 | (reg & 7)) && p[i + 3] == imm)
			return 1;
	return 0;
}

/* "mov @disp(%@cfp),%ep" right before "testb $@flag,(%ep)", anywhere in @p. */
static int has_flag_test(const unsigned char *p, size_t n, int cfp, int32_t disp, uint32_t flag)
{
	struct load l;
	size_t i, k, at;

	if (flag > 0xff)
		return 0;
	for (i = 0; i < n; i++) {
		k = load_at(p + i, n - i, &l);
		if (!k || l.base != cfp || l.disp != disp || (l.dst & 7) == 4 || (l.dst & 7) == 5)
			continue;
		at = i + k + (l.dst >= 8);
		if (at + 3 <= n && (l.dst < 8 || p[i + k] == 0x41) && p[at] == 0xf6 &&
		    p[at + 1] == (l.dst & 7) && p[at + 2] == flag)
			return 1;
	}
	return 0;
}

/* Up to @len bytes of function @name's code in @p: how many, or 0. */
static size_t code_of(Elf *elf, const char *name, unsigned char *p, size_t len)
{
	GElf_Sym s;

	if (vmstack_elf_symbol(elf, name, &s) || s.st_size < 4)
		return 0;
	if (s.st_size < len)
		len = s.st_size;
	return vmstack_elf_read(elf, s.st_value, p, len) ? 0 : len;
}

/* rb_profile_frames' walk of the execution context's frames; NULL, or what disagrees. */
static const char *frames_code(const struct ruby_layout *L, Elf *elf)
{
	unsigned char p[256];
	size_t n = code_of(elf, "rb_profile_frames", p, sizeof(p)), k;
	int ec = -1, stack = -1, size = -1, cfp = -1;
	struct load l;
	long at;

	if (!n)
		return "rb_profile_frames is not in the file";
	/* The context: the first "mov (%rax),%reg", __tls_get_addr's slot read. */
	at = find_load(p, n, 0, 0, 0, &ec);
	if (at < 0)
		return "rb_profile_frames does not read ruby_current_ec as vmstack knows";
	/* Its fields, one load after the other, until its register is reused. */
	for (at += 3; (k = load_at(p + at, n - (size_t)at, &l)) && l.base == ec; at += (long)k) {
		if (l.disp == L->ec_vm_stack)
			stack = l.dst;
		else if (l.disp == L->ec_vm_stack_size)
			size = l.dst;
		else if (l.disp == L->ec_cfp)
			cfp = l.dst;
		if (l.dst == ec)
			break;
	}
	if (stack < 0 || size < 0 || cfp < 0)
		return "rb_profile_frames loads the execution context's vm_stack, vm_stack_size "
		       "or cfp elsewhere";
	if (!has_lea_scaled(p, n, stack, size, 3))
		return "rb_profile_frames' end of frames is not vm_stack + vm_stack_size * 8";
	if (!has_add_imm8(p, n, cfp, L->cfp_size))
		return "rb_profile_frames steps by another control frame size";
	if (!has_flag_test(p, n, cfp, L->cfp_ep, L->flag_cframe))
		return "rb_profile_frames tests another field or flag for C frames";
	if (find_load(p, n, 0, cfp, L->cfp_iseq, NULL) < 0 ||
	    find_load(p, n, 0, cfp, L->cfp_pc, NULL) < 0)
		return "rb_profile_frames loads a frame's iseq or pc elsewhere";
	return NULL;
}

/* Function @name is "mov body(%rdi),%r; mov @field(%r),%any". */
static int iseq_getter(const struct ruby_layout *L, Elf *elf, const char *name, int32_t field)
{
	unsigned char p[16];
	size_t n = code_of(elf, name, p, sizeof(p)), k;
	struct load a, b;

	return n && (k = load_at(p, n, &a)) && a.base == 7 && a.disp == L->iseq_body &&
	       load_at(p + k, n - k, &b) && b.base == a.dst && b.disp == field;
}

int ruby_code_agrees(const struct ruby_layout *L, Elf *elf, char *why, size_t len)
{
	const char *bad = frames_code(L, elf);

	if (!bad && !iseq_getter(L, elf, "rb_iseq_label", L->body_label))
		bad = "rb_iseq_label reads the iseq's body or label elsewhere";
	if (!bad && !iseq_getter(L, elf, "rb_iseq_first_lineno", L->body_first_lineno))
		bad = "rb_iseq_first_lineno reads the iseq's body or first line elsewhere";
	if (bad)
		snprintf(why, len, "Ruby %s whose code disagrees with the layout vmstack has: %s",
			 L->version, bad);
	return !bad;
}

/*
 * @v is an iseq (T_IMEMO of type imemo_iseq) whose code holds @pc, or
 * @pc is 0: a frame pushed before it runs (live: a TOP frame in start-up),
 * which the program hides.
 */
static int runs_iseq(const struct ruby_layout *L, int pid, uint64_t v, uint64_t pc)
{
	uint64_t flags, body, code;
	uint32_t size;

	return v && !(v & 7) && !read_target(pid, v, &flags, 8) &&
	       (flags & L->type_mask) == L->t_imemo &&
	       (flags >> L->imemo_shift & L->imemo_mask) == L->imemo_iseq &&
	       !read_target(pid, v + L->iseq_body, &body, 8) &&
	       !read_target(pid, body + L->body_iseq_encoded, &code, 8) &&
	       !read_target(pid, body + L->body_iseq_size, &size, 4) &&
	       (!pc || (pc >= code && pc <= code + (uint64_t)size * 8));
}

/*
 * The innermost Ruby frame of the context (its top 64 frames): NULL if it
 * runs an iseq (*@proved set), or there is none (a thread not started,
 * with only its dummy frame; a fiber just made); else what is wrong with
 * it.
 */
static const char *innermost_frame(const struct ruby_layout *L, int pid, uint64_t ec,
				   uint64_t stack, uint64_t end, bool *proved)
{
	uint64_t cfp, ep, flags, iseq, pc;
	unsigned int i;

	if (read_target(pid, ec + L->ec_cfp, &cfp, 8) || cfp < stack || cfp >= end ||
	    (end - cfp) % (uint64_t)L->cfp_size)
		return "its current frame is not in its VM stack's frame array";
	for (i = 0; i < 64 && cfp < end; i++, cfp += (uint64_t)L->cfp_size) {
		if (read_target(pid, cfp + L->cfp_ep, &ep, 8) || read_target(pid, ep, &flags, 8))
			return "a frame's environment cannot be read";
		/* C frames; dummy ones, which in 3.1.2 lack CFRAME (0x7999082f live). */
		if ((flags & L->flag_cframe) || (flags & L->magic_mask) == L->magic_dummy)
			continue;
		if (read_target(pid, cfp + L->cfp_iseq, &iseq, 8) ||
		    read_target(pid, cfp + L->cfp_pc, &pc, 8) || !runs_iseq(L, pid, iseq, pc))
			return "its innermost Ruby frame has no iseq holding its pc";
		*proved = true;
		return NULL;
	}
	return NULL;
}

/* Whether @addr lies in a writable mapping of process @pid. */
static bool in_writable_map(int pid, uint64_t addr)
{
	char path[64], line[4096];
	struct vmstack_map m;
	bool in = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!in && fgets(line, sizeof(line), f))
		in = !vmstack_map_parse(line, &m) && m.perms[1] == 'w' &&
		     addr >= m.start && addr < m.end;
	fclose(f);
	return in;
}

/*
 * The context's machine stack, which the program checks the sampled
 * stack against: its top in writable memory (the thread's stack or a
 * fiber's), a size of a C stack.
 */
static const char *machine_stack_of(const struct ruby_layout *L, int pid, uint64_t ec)
{
	uint64_t start, maxsize;

	if (read_target(pid, ec + L->ec_stack_start, &start, 8) ||
	    read_target(pid, ec + L->ec_stack_maxsize, &maxsize, 8) ||
	    maxsize < (16 << 10) || maxsize > (1ULL << 30) || maxsize > start ||
	    !in_writable_map(pid, start - 1))
		return "its execution context's machine stack is not one";
	return NULL;
}

/*
 * The main thread @th's current context, read once: NULL if it fits, else
 * what does not. The thread runs: it may switch fibers (a new context)
 * or frames between two reads, so the caller tries again.
 */
static const char *context_of(const struct ruby_layout *L, int pid, uint64_t th, int32_t tls_ec,
			      uint64_t *ec, bool *proved)
{
	uint64_t back, fs, cur, stack, size, ep, flags;
	const char *why;

	if (read_target(pid, th + L->th_ec, ec, 8) || !*ec ||
	    read_target(pid, *ec + L->ec_thread_ptr, &back, 8) || back != th)
		return "its main thread's execution context does not point back to the thread";
	if (read_target(pid, th + L->th_thread_id, &fs, 8) ||
	    read_target(pid, fs + (uint64_t)(int64_t)tls_ec, &cur, 8) || cur != *ec)
		return "its main thread's ruby_current_ec is not where the program reads it";
	if (read_target(pid, *ec + L->ec_vm_stack, &stack, 8) ||
	    read_target(pid, *ec + L->ec_vm_stack_size, &size, 8) || !stack ||
	    size < 1024 || size > (1ULL << 27))
		return "its execution context's VM stack is not one";
	/* Threads' and fibers' stacks start with a dummy frame. */
	if (read_target(pid, stack + size * 8 - (uint64_t)L->cfp_size + L->cfp_ep, &ep, 8) ||
	    read_target(pid, ep, &flags, 8) || (flags & L->magic_mask) != L->magic_dummy)
		return "the bottom of its frame array is not a dummy frame";
	why = machine_stack_of(L, pid, *ec);
	if (why)
		return why;
	return innermost_frame(L, pid, *ec, stack, stack + size * 8, proved);
}

/* The reasons tries gave, and how often: a handful of distinct strings. */
struct reason_count {
	const char *why;
	unsigned int n;
};
#define REASONS 8

static void note_reason(struct reason_count *seen, const char *why)
{
	unsigned int i;

	for (i = 0; i < REASONS && seen[i].why && seen[i].why != why; i++)
		;
	if (i < REASONS) {
		seen[i].why = why;
		seen[i].n++;
	}
}

static const char *most_said(const struct reason_count *seen)
{
	unsigned int i, best = 0;

	for (i = 1; i < REASONS && seen[i].why; i++)
		if (seen[i].n > seen[best].n)
			best = i;
	return seen[best].why;
}

int ruby_process_agrees(const struct ruby_layout *L, int pid, uint64_t vm_ptr, int32_t tls_ec,
			char *why, size_t len)
{
	struct reason_count seen[REASONS] = { { 0 } };
	uint64_t vm = 0, th = 0, ec = 0, back = 0;
	const char *bad = NULL;
	unsigned int unproved = 0;
	bool proved;
	int tries = 0;

	if (read_target(pid, vm_ptr, &vm, 8) || !vm ||
	    read_target(pid, vm + L->vm_main_thread, &th, 8) || !th)
		return 1;	/* not up yet: nothing to disagree with */
	if (read_target(pid, th + L->th_vm, &back, 8) || back != vm)
		bad = "its main thread does not point back to the VM";
	else
		/*
		 * The reads are not one snapshot: a fiber switch moves th->ec,
		 * ruby_current_ec and the context's stack apart for a while.
		 * Live, with a fiber made every few hundred microseconds, a
		 * third of the reads fell in such a window, and five tries a
		 * millisecond apart all did in one check of about 150 (unit
		 * test ruby_process_checks_layout). So up to 40 tries, until
		 * one proves the layout on a frame running an iseq. A try that
		 * finds no such frame (a fiber just made) proves nothing: a
		 * wrong iseq offset passed there. Without a proving try, the
		 * layout stands only if no try found a frame wrong; what a
		 * wrong layout keeps saying is the reason, not what a switch
		 * said once. A wrong layout costs about 10 ms, once a process.
		 */
		for (tries = 0; tries < 40; tries++) {
			proved = false;
			bad = context_of(L, pid, th, tls_ec, &ec, &proved);
			if (!bad && proved)
				break;
			if (bad)
				note_reason(seen, bad);
			else
				unproved++;
			usleep(200 + 37 * tries);
		}
	if (tries == 40)
		bad = unproved && !seen[0].why ? NULL : most_said(seen);
	if (bad)
		snprintf(why, len, "Ruby %s whose running VM disagrees with the layout vmstack has "
			 "(VM 0x%" PRIx64 ", main thread 0x%" PRIx64 ", context 0x%" PRIx64 "): %s",
			 L->version, vm, th, ec, bad);
	return !bad;
}
