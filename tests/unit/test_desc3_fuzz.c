// SPDX-License-Identifier: GPL-2.0
/*
 * ABI 3.6's walk against its translation: the descriptors the runtimes
 * make of the interpreters on this host (LuaJIT GC64 and Tarantool's,
 * Lua 5.4, CPython 3.11) and custom ones, each over random fake memory
 * made of the values its walk compares with (state check bytes, kinds,
 * type tags, links into the fake stacks). Per sample, up to three
 * activations: 3.6's vmstack_vm_splice() against the program's run and
 * the module's fixed part as ABI 4 says it (the exits, the cut marker,
 * the caller's registers). Every word, flag, splice and caller must agree.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_mem.h"
#include "unit.h"
#include "vm_prog.h"
#include "vm_walk.h"
#include "vm/desc3_prog.h"
#include "vm/runtime.h"
#include "symbols.h"

#define STACK	0x7ff000000000UL
#define HEAP	0x10000000UL
#define LEN	0x4000UL
#define MAP	0x400000UL		/* where the runtimes' files are mapped */

static u64 ips3[2048], ips4[2048];
static uint64_t seed;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A byte a walk compares with, or any. */
static uint8_t some_byte(const struct vmstack_vm_desc *d)
{
	const uint8_t b[] = { d->check_val, d->kind_script, d->kind_native,
			      d->func_check_val, d->ident_check_val, d->cont_type, 0 };

	return rnd() % 4 ? b[rnd() % sizeof(b)] : (uint8_t)rnd();
}

/* A word of the fake memory: pointers into it, links, values compared with. */
static uint64_t some_word(const struct vmstack_vm_desc *d)
{
	uint64_t v = 0;
	int i;

	switch (rnd() % 14) {
	case 0: return 0;
	case 1: case 2: case 3: case 4: return HEAP + (rnd() % LEN & ~7UL);
	case 5: return HEAP + rnd() % LEN;
	case 6: case 7: return STACK + (rnd() % LEN & ~7UL);
	case 8: return rnd() % 64;
	case 9: return d->kind_word;
	case 10: return d->cont_val;
	case 11: return (rnd() % 32) * 8 | (rnd() & d->type_mask);
	case 12:
		for (i = 0; i < 8; i++)
			v |= (uint64_t)some_byte(d) << 8 * i;
		return v;
	default: return rnd();
	}
}

static void fill(uint64_t base, size_t len, const struct vmstack_vm_desc *d)
{
	size_t i;

	fake_mem_map(base, len);
	for (i = 0; i < len; i += 8)
		fake_put64(base + i, some_word(d));
}

static uint64_t state_page;	/* the descriptor's global's page, mapped, or 0 */

/* Is [@addr, @addr + @len) in the fake memory (plants go only there)? */
static bool mapped(uint64_t addr, size_t len)
{
	return (addr >= STACK && addr + len <= STACK + LEN) ||
	       (addr >= HEAP && addr + len <= HEAP + LEN) ||
	       (state_page && addr >= state_page && addr + len <= state_page + 0x2000);
}

static void put(uint64_t addr, uint64_t v, size_t len)
{
	if (!mapped(addr, len))
		return;
	switch (len) {
	case 1: fake_put8(addr, (uint8_t)v); break;
	case 2: fake_put16(addr, (uint16_t)v); break;
	case 4: fake_put32(addr, (uint32_t)v); break;
	default: fake_put64(addr, v); break;
	}
}

/* A VM reference (4 bytes with F_REF32, else 8) at @addr. */
static void put_ref(const struct vmstack_vm_desc *d, uint64_t addr, uint64_t v)
{
	put(addr, v, d->flags & VMSTACK_VM_F_REF32 ? 4 : 8);
}

/* An aligned place in the heap's @part-th eighth (0..7), away from its ends. */
static uint64_t heap_at(unsigned int part)
{
	return HEAP + part * (LEN / 8) + 0x40 + (rnd() % (LEN / 8 - 0x80) & ~7UL);
}

/*
 * A function object the frame at @f shows (mostly a script function whose
 * code holds @pc_in when that is not 0); returns its code start for the
 * callee's return PC.
 */
static uint64_t plant_fn(const struct vmstack_vm_desc *d, uint64_t f)
{
	uint64_t fn = heap_at(4 + rnd() % 2), slot = heap_at(6), code = heap_at(7);
	uint64_t ident = code - (uint64_t)(int64_t)d->ident_adj;
	bool script = rnd() % 5;

	if (d->flags & VMSTACK_VM_F_FUNC_SLOT) {
		put_ref(d, f + d->func_off, slot);
		put_ref(d, slot, fn);
		put(slot + d->kind_off, script ? d->kind_script : (uint8_t)(rnd() % 4), 1);
	} else {
		put_ref(d, f + d->func_off, fn);
		if (d->flags & VMSTACK_VM_F_KIND_WORD)
			put(fn + d->kind_off, script ? d->kind_word : rnd() % 4, 8);
		else
			put(fn + d->kind_off, script ? d->kind_script :
				  rnd() % 2 ? d->kind_native : (uint8_t)(rnd() % 4), 1);
	}
	if ((d->flags & VMSTACK_VM_F_FUNC_CHECK) && rnd() % 8)
		put(fn + d->func_check_off, d->func_check_val, 1);
	put_ref(d, fn + d->ident_off, code);
	if (d->flags & VMSTACK_VM_F_PC_CHECK)
		put(code + d->ident_adj + d->pc_size_off, 4 + rnd() % 8, 4);
	if ((d->flags & VMSTACK_VM_F_IDENT_CHECK) && rnd() % 8)
		put((d->flags & VMSTACK_VM_F_FUNC_IDENT ? fn : ident) + d->ident_adj +
			  d->ident_check_off, d->ident_check_val, 1);
	return code;
}

/* @k frames linked by pointers from @f (in the heap's first half). */
static void plant_pointer(const struct vmstack_vm_desc *d, uint64_t f, unsigned int k)
{
	uint64_t next;

	while (k--) {
		next = k ? heap_at(rnd() % 4) : rnd() % 2 ? 0 : heap_at(rnd() % 4);
		put_ref(d, f + d->link_off, next);
		put(f + d->flags_off, !k || !(rnd() % 6) ? d->bottom_flags :
			   rnd() % 5 ? 0 : d->native_flags, 2);
		plant_fn(d, f);
		f = next;
		if (!f)
			return;
	}
}

/*
 * @k frames of a tagged-delta stack from @f down: links by a typed delta,
 * or by a return PC in the caller's code whose call instruction says how
 * far down the caller's frame is.
 */
static void plant_delta(const struct vmstack_vm_desc *d, uint64_t f, unsigned int k)
{
	uint64_t code = plant_fn(d, f), next, pc;
	uint32_t field, type;

	while (k-- && f > HEAP + 0x100) {
		field = 1 + rnd() % 3;
		next = f - (uint64_t)d->slot * (d->extra + field);
		if (next < HEAP + 0x40)
			return;
		if (rnd() % 2) {
			uint64_t caller_code;

			caller_code = plant_fn(d, next);
			pc = caller_code + 4 * (1 + rnd() % 4);
			if ((pc & d->pc_mask) != d->pc_val)
				pc = (pc & ~(uint64_t)d->pc_mask) | d->pc_val;
			put_ref(d, f + d->link_off, pc);
			put(pc + d->insn_off, field << d->insn_shift, 4);
			code = caller_code;
		} else {
			type = rnd() % (d->type_mask + 1);
			if (!(rnd() % 4) && (d->flags & VMSTACK_VM_F_CONT_BOTTOM)) {
				type = d->cont_type;
				put_ref(d, f + d->cont_off, d->cont_val);
			}
			if (((f - next) | type) & d->pc_mask)
				put_ref(d, f + d->link_off, (f - next) | type);
			code = plant_fn(d, next);
		}
		f = next;
	}
	(void)code;
}

/*
 * A state that passes its check, found where the descriptor looks (the AR,
 * the global, the thread list, compiled code's anchor), whose top frame
 * starts a plausible chain; sometimes the top register names it too.
 */
static void plant(const struct vmstack_vm_desc *d, struct vmstack_walk *w,
		  unsigned long sp, unsigned long anchor)
{
	uint64_t st = heap_at(rnd() % 4), top, lo = HEAP, ar = sp + d->ar_off;
	uint64_t list;

	put(st + d->check_off, d->check_val, 1);
	if (d->state_from == VMSTACK_VM_STATE_AR)
		put_ref(d, ar + d->state_off, st);
	if (d->state_from == VMSTACK_VM_STATE_GLOBAL)
		put(d->state_addr, st, 8);
	if (d->state_from == VMSTACK_VM_STATE_THREAD) {
		list = heap_at(rnd() % 4);
		put(d->state_addr, list, 8);
		put(list + d->thr_head_off, st, 8);
		put(st + d->thr_tid_off, rnd() % 4 ? w->tid : 5, 4);
		put(st + d->thr_next_off, 0, 8);
	}
	if (anchor)
		put_ref(d, anchor + d->jit_state_off, st);
	if (d->flags & VMSTACK_VM_F_AR_EMPTY)
		put(ar + d->ar_empty_off, rnd() % 4 ? 1 : (uint32_t)-1, 4);
	if ((d->flags & VMSTACK_VM_F_AR_CHAIN) && rnd() % 4)
		put(st + d->state_ar_off, rnd() % 4 ? ar : 0, 8);
	if (d->link == VMSTACK_VM_LINK_TAGGED_DELTA) {
		put_ref(d, st + d->stack_off, lo);
		top = HEAP + LEN / 2 - 0x40 - (rnd() % 0x400 & ~7UL);
		plant_delta(d, top, 1 + rnd() % 10);
	} else {
		top = heap_at(rnd() % 4);
		plant_pointer(d, top, 1 + rnd() % 10);
	}
	put((d->flags & VMSTACK_VM_F_TOP_AR ? ar : st) + d->top_off,
		   top - (uint64_t)(int64_t)d->top_adj, 8);
	if (anchor)
		put_ref(d, anchor + d->jit_top_off, top - (uint64_t)(int64_t)d->top_adj);
	if (d->top_reg && rnd() % 2)
		w->regs[d->top_reg] = top - (uint64_t)(int64_t)d->top_adj;
}

static struct vmstack_walk walk(u64 *ips, unsigned int max)
{
	struct vmstack_walk w = { .ips = ips, .max = max, .reads_left = VMSTACK_MAX_READS,
				  .deadline = ~0ULL, .tid = 77 };
	int i;

	for (i = 1; i < __VMSTACK_VM_REG_MAX; i++)
		w.regs[i] = (unsigned long)(seed >> i);
	return w;
}

/* The module's way back from an AR, as ABI 3.6 and 4 both say it. */
static bool caller_at(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
		      const struct vmstack_user_regs *r, unsigned long ar,
		      struct vmstack_user_regs *c)
{
	unsigned long bp, ra, sp = ar + d->caller_sp_off;

	if ((sp & 7) || sp < r->sp + 8 || sp - r->sp > VMSTACK_USER_STACK_SPAN ||
	    !vmstack_vm_read(w, &bp, ar + d->caller_bp_off, sizeof(bp)) ||
	    !vmstack_vm_read(w, &ra, ar + d->caller_ra_off, sizeof(ra)))
		return false;
	*c = (struct vmstack_user_regs){ .ip = ra, .sp = sp, .bp = bp };
	return true;
}

/* The fixed part of ABI 4 after a run that ended with @end (the cut as 3.6's vmstack_vm_cut). */
static enum vmstack_splice after_run(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
				     const struct vmstack_user_regs *r, int end, u64 ar,
				     bool jit, struct vmstack_user_regs *c)
{
	bool step = d->flags & VMSTACK_VM4_F_NATIVE_STEP;
	int reason = end - VMSTACK_VM4_X_CUT;

	if (end == VMSTACK_VM4_X_EMPTY)
		return step ? VMSTACK_SPLICE_NATIVE :
		       caller_at(w, d, r, ar, c) ? VMSTACK_SPLICE_CALLER : VMSTACK_SPLICE_NATIVE;
	if (end >= VMSTACK_VM4_X_CUT) {
		if (w->flags & VMSTACK_SF_BUDGET)
			reason = VMSTACK_VMB_BUDGET;
		else
			w->flags |= VMSTACK_SF_VM_BROKEN;
		if (reason != VMSTACK_VMB_BUDGET && w->faults >= VMSTACK_MAX_VM_FAULTS)
			reason = VMSTACK_VMB_FAULTS;
		vmstack_vm_emit(w, vmstack_vmw(VMSTACK_VMW_BROKEN, 0, reason));
		if (end == VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE && !jit)
			return VMSTACK_SPLICE_NATIVE;
	}
	w->flags |= VMSTACK_SF_VM;
	if (jit) {
		if (!ar || !caller_at(w, d, r, ar, c))
			c->ip = 0;
		return VMSTACK_SPLICE_CALLER;
	}
	if (step)
		return VMSTACK_SPLICE_STEP;
	return caller_at(w, d, r, ar, c) ? VMSTACK_SPLICE_CALLER : VMSTACK_SPLICE_NATIVE;
}

struct fuzz_count {
	unsigned long samples, activations, jit, mismatches;
	unsigned long kinds[8];		/* words of each enum vmstack_vmw_kind */
};

/*
 * Compiled code: an anchor in the descriptor's register whose table
 * names an object holding @ip (3.6's lookup must succeed for the two to
 * run the same walk).
 */
static void jit_setup(const struct vmstack_vm_desc *d, struct vmstack_walk *w,
		      unsigned long ip, unsigned long *anchor, unsigned long *obj)
{
	unsigned long a = HEAP + 0x3000, table = HEAP + 0x3800;

	*obj = HEAP + 0x3c00;
	w->regs[d->jit_reg] = a - d->jit_anchor_adj;
	*anchor = a;
	fake_put32(a + d->jit_id_off, 1);
	fake_put32(a + d->jit_count_off, 2);
	fake_put64(a + d->jit_table_off, table);
	if (d->flags & VMSTACK_VM_F_REF32)
		fake_put32(table + 4, (u32)*obj);
	else
		fake_put64(table + 8, *obj);
	fake_put64(*obj + d->jit_code_off, ip - 16);
	fake_put32(*obj + d->jit_size_off, 64);
}

/* One random sample of @d and @d4: false on a mismatch (reported). */
static bool one_sample(const struct vmstack_vm_desc *d, const struct vmstack_vm_desc4 *d4,
		       const char *name, struct fuzz_count *n)
{
	uint64_t s = seed;
	unsigned int max = rnd() % 8 ? 2048 : 8 + rnd() % 24, acts = 1 + rnd() % 3, i;
	bool jit = (d->flags & VMSTACK_VM_F_JIT) && d->jit_reg && !(rnd() % 3);
	struct vmstack_walk w3 = walk(ips3, max), w4 = walk(ips4, max);
	struct vmstack_vm_cursor cur = { 0 };
	unsigned long anchor = 0, obj = 0;
	unsigned int j;

	fake_mem_reset();
	fill(STACK, LEN, d);
	fill(HEAP, LEN, d);
	state_page = d->state_addr & ~0xfffUL;
	if (state_page)
		fill(state_page, 0x2000, d);
	w3.vms = d;
	w3.nr_vms = 1;
	w4.vms4 = d4;
	w4.nr_vms = 1;
	if (jit) {
		jit_setup(d, &w3, STACK - 0x1000, &anchor, &obj);
		w4.regs[d->jit_reg] = w3.regs[d->jit_reg];
	}
	n->samples++;
	for (i = 0; i < acts; i++) {
		struct vmstack_user_regs r = { .ip = d->code_start, .sp = STACK + (rnd() % LEN & ~7UL),
					       .bp = some_word(d) };
		struct vmstack_user_regs c3 = { 0 }, c4 = { 0 };
		enum vmstack_splice s3, s4;
		bool at_jit = jit && !i;
		u64 reg[VMSTACK_VM4_REGS] = { 0 };
		int end;

		if (at_jit)
			r.ip = STACK - 0x1000;
		/* The same plant for both: the walk struct's registers are 3.6's, then copied. */
		if (rnd() % 4)
			plant(d, &w3, r.sp, at_jit ? anchor : 0);
		/* The lookup must succeed (the module's part): its objects win over the plant. */
		if (at_jit)
			jit_setup(d, &w3, r.ip, &anchor, &obj);
		memcpy(w4.regs, w3.regs, sizeof(w3.regs));
		if (d->top_reg == VMSTACK_VM_REG_RBP && rnd() % 2)
			r.bp = w3.regs[VMSTACK_VM_REG_RBP];
		s3 = vmstack_vm_splice(&w3, &r, !i, at_jit, &cur, &c3);
		if (at_jit) {
			if (w4.n < w4.max)
				vmstack_vm_emit(&w4, vmstack_vmw(VMSTACK_VMW_JIT, 0, obj));
			/* As if the lookup was made: 3.6's reads id, count, table, entry, code, size. */
			w4.reads_left -= 6;
		}
		reg[0] = at_jit ? VMSTACK_VM4_AT_JIT : VMSTACK_VM4_AT_NATIVE;
		reg[1] = at_jit ? anchor : r.sp;
		reg[2] = at_jit ? obj : r.bp;
		reg[3] = r.ip;
		reg[4] = !i;
		reg[5] = w4.tid;
		memcpy(&reg[8], w4.vm_carry[0], sizeof(w4.vm_carry[0]));
		end = vmstack_vm_prog_run(&w4, d4, reg);
		s4 = after_run(&w4, d4, &r, end, reg[1], at_jit, &c4);
		n->activations++;
		n->jit += at_jit;
		/*
		 * A full ips[] ends the walk: 3.6 went on to the caller's
		 * registers, ABI 4 stops; nothing more is stored either way.
		 */
		if (w3.n != w4.n || memcmp(ips3, ips4, w3.n * sizeof(ips3[0])) ||
		    w3.flags != w4.flags ||
		    (!(w3.flags & VMSTACK_SF_USER_TRUNC) &&
		     (w3.reads_left != w4.reads_left || w3.faults != w4.faults || s3 != s4 ||
		      (s3 == VMSTACK_SPLICE_CALLER && memcmp(&c3, &c4, sizeof(c3)))))) {
			fprintf(stderr, "  %s: seed %#llx activation %u: 3.6 n %u flags %#x splice %d"
				" reads %u; 4.0 n %u flags %#x splice %d reads %u exit %d\n",
				name, (unsigned long long)s, i, w3.n, w3.flags, s3, w3.reads_left,
				w4.n, w4.flags, s4, w4.reads_left, end);
			n->mismatches++;
			return false;
		}
		if (w3.flags & VMSTACK_SF_USER_TRUNC)
			break;
	}
	/* A script word's PC follows it: not a word of its own. */
	for (j = 0; j < w3.n; j++) {
		if (!vmstack_is_vmw(ips3[j]))
			continue;
		n->kinds[vmstack_vmw_kind(ips3[j])]++;
		if (vmstack_vmw_kind(ips3[j]) == VMSTACK_VMW_SCRIPT)
			j++;
	}
	return true;
}

/* The runtime @rt's descriptor of the file at @path, mapped at MAP. */
static bool detect(const char *rt, const char *path, struct vmstack_vm_desc *d)
{
	struct vmstack_symtab t = { .fd = -1 };
	struct vmstack_map m = { .start = MAP, .end = MAP + 0x10000000 };
	struct vmstack_vm_found f;
	char why[256];
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0 || vmstack_symtab_load_elf(&t, fd, NULL))
		return false;
	m.path = (char *)path;
	m.symtab = &t;
	memset(&f, 0, sizeof(f));
	ok = vmstack_runtime_find(rt)->detect(&m, 0, &f, why, sizeof(why)) == VMSTACK_DETECT_YES;
	vmstack_symtab_free(&t);
	*d = f.desc;
	return ok;
}

/* A custom VM linked by pointers, as libvmstack and the text format describe one. */
static struct vmstack_vm_desc custom(bool global)
{
	struct vmstack_vm_desc d = {
		.code_start = MAP, .code_end = MAP + 0x1000, .link = VMSTACK_VM_LINK_POINTER,
		.state_from = global ? VMSTACK_VM_STATE_GLOBAL : VMSTACK_VM_STATE_AR,
		.state_addr = global ? HEAP + 0x100 : 0, .check_val = 0x55,
		.top_reg = global ? VMSTACK_VM_REG_NONE : VMSTACK_VM_REG_RDX,
		.top_off = 8, .flags_off = 8, .bottom_flags = 1, .native_flags = 2,
		.func_off = 16, .func_mask = ~0ULL, .kind_script = 1, .kind_native = 2,
		.ident_off = 8, .caller_bp_off = 16, .caller_ra_off = 24, .caller_sp_off = 32,
		.ar_empty_off = 8, .max_frames = 16, .frame_pc_off = 24, .ident_check_off = 4,
		.ident_check_val = 0x55,
	};

	d.flags = global ? VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC |
			   VMSTACK_VM_F_IDENT_CHECK | VMSTACK_VM_F_AR_CHAIN :
			   VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_NO_BUILTINS;
	d.ar_chain_max = 4;
	d.state_ar_off = 16;
	d.ar_prev_off = 8;
	return d;
}

UNIT_TEST(desc3_fuzz)
{
	static const struct { const char *rt, *path; } real[] = {
		{ "luajit", "/usr/bin/luajit" }, { "luajit", "/usr/bin/tarantool" },
		{ "lua54", "/usr/bin/lua5.4" }, { "cpython", "/usr/bin/python3.11" },
	};
	const char *env = getenv("VMSTACK_FUZZ_SAMPLES");
	unsigned long per = env ? strtoul(env, NULL, 0) : 5000, k;
	struct vmstack_vm_desc d[6];
	const char *names[6];
	struct fuzz_count all = { 0 };
	static struct vmstack_vm_desc4 d4;
	unsigned int nd = 0, i;
	const char *err;
	int at;

	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++)
		if (detect(real[i].rt, real[i].path, &d[nd]))
			names[nd++] = real[i].path;
	d[nd] = custom(false);
	names[nd++] = "custom (AR)";
	d[nd] = custom(true);
	names[nd++] = "custom (global, C)";
	for (i = 0; i < nd; i++) {
		struct fuzz_count n = { 0 };

		err = vmstack_desc3_prog(&d[i], &d4);
		CHECK(err == NULL);
		if (err) {
			fprintf(stderr, "  %s: %s\n", names[i], err);
			continue;
		}
		err = vmstack_vm_desc4_check_insn(&d4, &at);
		CHECK(err == NULL);
		if (err) {
			fprintf(stderr, "  %s: instruction %d: %s\n", names[i], at, err);
			continue;
		}
		seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		for (k = 0; k < per && n.mismatches < 3; k++)
			one_sample(&d[i], &d4, names[i], &n);
		CHECK(n.mismatches == 0);
		fprintf(stderr, "  %s (flags %#x): %u instructions, %lu samples, %lu activations"
			" (%lu in compiled code); frames: %lu script, %lu builtin, %lu unverified,"
			" %lu cut; %lu mismatches\n",
			names[i], d[i].flags, d4.prog_len, n.samples, n.activations, n.jit,
			n.kinds[VMSTACK_VMW_SCRIPT], n.kinds[VMSTACK_VMW_BUILTIN],
			n.kinds[VMSTACK_VMW_UNVERIFIED], n.kinds[VMSTACK_VMW_BROKEN], n.mismatches);
		all.samples += n.samples;
		all.mismatches += n.mismatches;
	}
	fake_mem_reset();
}
