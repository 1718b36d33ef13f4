// SPDX-License-Identifier: GPL-2.0
/*
 * The name LuaJIT's own debug.getinfo(f, "n") gives a Lua function: what
 * its caller's call instruction calls (lj_debug.c, lj_debug_funcname and
 * lj_debug_slotname, the same in LuaJIT v2.1 1ee778a4, Tarantool's fork
 * b52fe979 and OpenResty's luajit2 15f58c96). The call's slot is traced
 * back in a straight line from the call: a local alive there (varinfo), a
 * MOV followed to its source, GGET "global", TGETS "field" (or "method"
 * when the object was moved right before), UGET "upvalue"; an instruction
 * that sets a range of slots (a call's results, KNIL, VARG...) over it
 * gives no name, nor anything else that sets it.
 *
 * LuaJIT names a function a tail call put in its caller's frame by the
 * call that made that frame (the tail call keeps its link): so does
 * this. A metamethod is named by the metamethod ("__index"), as LuaJIT
 * names it, from the instruction before the PC its continuation frame
 * kept (desc3's F_CONT_PC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vm/luajit/luajit.h"
#include "vm/luajit/lj_callname.h"

/* More than a function has (LuaJIT's parser stops at 2^26 - 1 instructions, BCMAX_D ops less). */
#define MAX_BC		(1 << 20)

/*
 * Opcodes of every LuaJIT 2.1 since 73ef845f (2013), lj_bc.h's BCDEF
 * order: the same numbers up to JMP (88) in upstream (the 2026 bit
 * operations come after it), Tarantool's and OpenResty's trees. Only
 * what the scan tells apart: the operand A's mode (BCMdst: sets the
 * slot A; BCMbase: sets slots from A up) and the ops it reads.
 */
enum {
	BC_MOV = 18, BC_KNIL = 44, BC_UGET = 45, BC_GGET = 54, BC_TGETS = 57,
	BC_CALLM = 65, BC_CALL = 66, BC_ITERC = 69, BC_ITERN = 70,
	BC_JMP = 88,
	/* FUNCF..JFUNCV, and after the 2026 bit operations (BNOT..BSAR, 89-95) */
	BC_FUNCF = 89, BC_JFUNCV = 94, BC_FUNCF_BITOP = 96, BC_JFUNCV_BITOP = 101,
};

enum { M_NONE, M_DST, M_BASE };

/* Operand A's mode of op 0..BC_JMP (lj_bc_mode[op] & 7, only dst and base kept). */
static const uint8_t a_mode[BC_JMP + 1] = {
	[12] = M_DST, [13] = M_DST,		/* ISTC ISFC */
	[18 ... 43] = M_DST,			/* MOV NOT UNM LEN, arithmetic, POW CAT, KSTR..KPRI */
	[44] = M_BASE,				/* KNIL */
	[45] = M_DST,				/* UGET */
	[51 ... 54] = M_DST,			/* FNEW TNEW TDUP GGET */
	[56 ... 59] = M_DST,			/* TGETV TGETS TGETB TGETR */
	[63] = M_BASE,				/* TSETM */
	[65 ... 73] = M_BASE,			/* CALLM..ITERN, VARG ISNEXT, RETM */
	[77 ... 84] = M_BASE,			/* FORI..JITERL */
};

/*
 * The metamethod an op calls (lj_bc.h's last column; lj_obj.h's MMDEF
 * order: index 0, newindex, gc, mode, eq, len, lt, le, concat, call, add,
 * sub, mul, div, mod, pow, unm 16), as 1 + MM; 0: none. A function called
 * so is named by the metamethod's name ("__index"), as LuaJIT does.
 */
#define MM(x)	(1 + (x))
static const uint8_t op_mm[BC_JMP + 1] = {
	[0 ... 1] = MM(6), [2 ... 3] = MM(7),	/* ISLT ISGE lt, ISLE ISGT le */
	[4 ... 11] = MM(4),			/* ISEQV..ISNEP eq */
	[20] = MM(16), [21] = MM(5),		/* UNM LEN */
	[22] = MM(10), [23] = MM(11), [24] = MM(12), [25] = MM(13), [26] = MM(14),
	[27] = MM(10), [28] = MM(11), [29] = MM(12), [30] = MM(13), [31] = MM(14),
	[32] = MM(10), [33] = MM(11), [34] = MM(12), [35] = MM(13), [36] = MM(14),
	[37] = MM(15), [38] = MM(8),		/* POW CAT */
	[51 ... 53] = MM(2),			/* FNEW TNEW TDUP gc */
	[54] = MM(0), [55] = MM(1),		/* GGET GSET */
	[56 ... 59] = MM(0), [60 ... 64] = MM(1),	/* TGET*, TSET* */
	[65 ... 70] = MM(9),			/* CALLM..ITERN */
};
static const char *const mm_names[] = {
	"__index", "__newindex", "__gc", "__mode", "__eq", "__len", "__lt", "__le",
	"__concat", "__call", "__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm",
};

const uint8_t *vmstack_luajit_a_modes(size_t *n)
{
	*n = sizeof(a_mode);
	return a_mode;
}

const uint8_t *vmstack_luajit_op_mms(size_t *n)
{
	*n = sizeof(op_mm);
	return op_mm;
}

/* Bytes of the target read in blocks that never cross a page they need not. */
struct bytes {
	int pid;
	uint64_t at;		/* the block's address; 1: none yet */
	uint8_t b[256];
};

static int byte_at(struct bytes *r, uint64_t addr, uint8_t *v)
{
	uint64_t block = addr & ~(uint64_t)(sizeof(r->b) - 1);

	if (r->at != block) {
		r->at = 1;
		if (read_target(r->pid, block, r->b, sizeof(r->b)))
			return -1;
		r->at = block;
	}
	*v = r->b[addr - block];
	return 0;
}

/* A name's most bytes: longer is no name LuaJIT's parser wrote. */
#define NAME_MAX_BYTES	256

/* The NUL-terminated string at @addr into @out (@len > 0, cut to fit): 0, or -1. */
static int cstring(struct bytes *r, uint64_t addr, char *out, size_t len)
{
	size_t i;
	uint8_t c;

	for (i = 0; i < NAME_MAX_BYTES; i++) {
		if (byte_at(r, addr + i, &c))
			return -1;
		if (i + 1 < len)
			out[i] = (char)c;
		if (!c) {
			if (i + 1 >= len)
				out[len - 1] = 0;
			return 0;
		}
	}
	return -1;
}

/* Past the NUL-terminated string at *@at (at most NAME_MAX_BYTES): 0, or -1. */
static int skip_cstring(struct bytes *r, uint64_t *at)
{
	size_t i;
	uint8_t c;

	for (i = 0; i < NAME_MAX_BYTES; i++) {
		if (byte_at(r, (*at)++, &c))
			return -1;
		if (!c)
			return 0;
	}
	return -1;
}

static int uleb128(struct bytes *r, uint64_t *addr, uint32_t *v)
{
	uint8_t c;
	int shift;

	*v = 0;
	for (shift = 0; shift < 35; shift += 7) {
		if (byte_at(r, (*addr)++, &c))
			return -1;
		*v |= (uint32_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

struct proto {
	const struct luajit_layout *lj;
	int pid;
	uint64_t pt;
	const uint32_t *bc;	/* bc[0 .. the call] */
	char *out;
	size_t len;
};

static int ref_at(const struct proto *p, uint64_t addr, uint64_t *v)
{
	uint32_t r;

	*v = 0;
	if (p->lj->fr->gc64)
		return read_target(p->pid, addr, v, 8);
	if (read_target(p->pid, addr, &r, 4))
		return -1;
	*v = r;
	return 0;
}

/*
 * debug_varname: the @slot-th variable alive at @pc (0 first) from the
 * prototype's varinfo, into out. 1 found, 0 not, -1 memory.
 */
static int local_name(const struct proto *p, uint32_t pc, uint32_t slot)
{
	static const char *const special[] = { NULL, "(for index)", "(for limit)",
		"(for step)", "(for generator)", "(for state)", "(for control)" };
	struct bytes r = { p->pid, 1, { 0 } };
	uint64_t at, name;
	uint32_t start = 0, n, i;
	uint8_t vn;

	if (ref_at(p, p->pt + p->lj->pt_varinfo, &at))
		return -1;
	if (!at)
		return 0;	/* no debug information kept */
	for (i = 0; i < 65536; i++) {
		name = at;
		if (byte_at(&r, at, &vn))
			return -1;
		if (!vn)
			return 0;
		at++;
		if (vn >= sizeof(special) / sizeof(special[0]) && skip_cstring(&r, &at))
			return -1;
		if (uleb128(&r, &at, &n))
			return -1;
		start += n;
		if (start > pc)
			return 0;
		if (uleb128(&r, &at, &n))
			return -1;
		if (pc < start + n && slot-- == 0) {
			if (vn < sizeof(special) / sizeof(special[0])) {
				snprintf(p->out, p->len, "%s", special[vn]);
				return 1;
			}
			return cstring(&r, name, p->out, p->len) ? -1 : 1;
		}
	}
	return -1;
}

/* Constant string ~@idx of the prototype (proto_kgc) into out: 0, or -1. */
static int kstring(const struct proto *p, uint32_t idx)
{
	const struct luajit_layout *lj = p->lj;
	uint64_t k, s;
	uint32_t n;
	char buf[256];

	if (ref_at(p, p->pt + lj->pt_k, &k) ||
	    ref_at(p, k - (uint64_t)(idx + 1) * (lj->fr->gc64 ? 8 : 4), &s) || !s ||
	    read_target(p->pid, s + lj->str_len, &n, 4))
		return -1;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (read_target(p->pid, s + lj->str_data, buf, n))
		return -1;
	buf[n] = 0;
	snprintf(p->out, p->len, "%s", buf);
	return 0;
}

/* lj_debug_uvname: upvalue @idx's name into out ("" without debug information). */
static int upvalue_name(const struct proto *p, uint32_t idx)
{
	struct bytes r = { p->pid, 1, { 0 } };
	uint64_t at;

	if (ref_at(p, p->pt + p->lj->pt_uvinfo, &at))
		return -1;
	if (!at) {
		p->out[0] = 0;
		return 0;
	}
	/* LuaJIT's upvalues are at most LJ_MAX_UPVAL (60): a larger index is no upvalue. */
	if (idx > 255)
		return -1;
	for (; idx; idx--)
		if (skip_cstring(&r, &at))
			return -1;
	return cstring(&r, at, p->out, p->len);
}

#define OP(i)	((i) & 0xff)
#define A(i)	(((i) >> 8) & 0xff)
#define B(i)	((i) >> 24)
#define C(i)	(((i) >> 16) & 0xff)
#define D(i)	((i) >> 16)

/* lj_debug_slotname from the instruction at @pos: 0 named, -1 not. */
static int slot_name(const struct proto *p, uint32_t pos, uint32_t slot)
{
	uint32_t ins, op;
	int got;

restart:
	got = local_name(p, pos, slot);
	if (got)
		return got > 0 ? 0 : -1;
	while (--pos > 0) {
		ins = p->bc[pos];
		op = OP(ins);
		if (op > BC_JMP)
			return -1;	/* not in a function's body: not a build this knows */
		if (a_mode[op] == M_BASE) {
			if (slot >= A(ins) && (op != BC_KNIL || slot <= D(ins)))
				return -1;
		} else if (a_mode[op] == M_DST && A(ins) == slot) {
			switch (op) {
			case BC_MOV:
				slot = D(ins);
				goto restart;
			case BC_GGET:
				return kstring(p, D(ins));
			case BC_TGETS:
				/* "method" or "field": either way the key is the name. */
				return kstring(p, C(ins));
			case BC_UGET:
				return upvalue_name(p, D(ins));
			default:
				return -1;
			}
		}
	}
	return -1;
}

int vmstack_luajit_callee_name(const struct luajit_layout *lj, int pid, uint64_t pt,
			       uint64_t pc, char *out, size_t len)
{
	struct proto p = { lj, pid, pt, NULL, out, len };
	uint64_t bc = pt + lj->proto_size;
	uint32_t sizebc, pos, op, head, slot, *ins;
	int ret = -1;

	/* Past a call in the function's body: not its header, not outside. */
	if (read_target(pid, pt + lj->pt_sizebc, &sizebc, 4) || sizebc > MAX_BC ||
	    pc < bc + 8 || (pc - bc) % 4 || (pc - bc) / 4 > sizebc)
		return -1;
	pos = (uint32_t)((pc - bc) / 4) - 1;
	ins = xmalloc(((size_t)pos + 1) * 4);
	if (read_target(pid, bc, ins, ((size_t)pos + 1) * 4))
		goto out;
	p.bc = ins;
	/* Every prototype's first instruction is its header: the numbering this knows. */
	head = OP(ins[0]);
	if (!((head >= BC_FUNCF && head <= BC_JFUNCV) ||
	      (head >= BC_FUNCF_BITOP && head <= BC_JFUNCV_BITOP)))
		goto out;
	op = OP(ins[pos]);
	if (op > BC_JMP || !op_mm[op])
		goto out;	/* no call there */
	if (op < BC_CALLM || op > BC_ITERN) {
		/* A metamethod's caller, its PC from the continuation frame. */
		snprintf(out, len, "%s", mm_names[op_mm[op] - 1]);
		ret = 0;
		goto out;
	}
	slot = A(ins[pos]);
	if (op == BC_ITERC) {
		if (slot < 3)
			goto out;
		slot -= 3;
	}
	ret = slot_name(&p, pos, slot);
out:
	free(ins);
	return ret;
}

int vmstack_luajit_site_name(const void *build, int pid, const struct vmstack_frame *callee,
			     const struct vmstack_frame *caller, char *out, size_t len)
{
	uint64_t pt = vmstack_luajit_tagged_proto(build, pid, caller->value);

	(void)callee;	/* named by the caller's call alone, as LuaJIT does */
	if (!caller->pc || !pt)
		return -1;	/* the walk knows no PC there, or the caller is gone */
	return vmstack_luajit_callee_name(build, pid, pt, caller->pc, out, len);
}
