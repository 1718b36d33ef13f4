// SPDX-License-Identifier: GPL-2.0
/*
 * The name a PUC Lua caller gives the function it calls, as ldebug.c
 * finds it (lua_code.h): the call instruction's register, traced back to
 * the instruction that last set it before the call. 5.1 traces with
 * symbexec (jumps forward are taken, a CLOSURE's upvalue pseudo-
 * instructions and a SETLIST's count skipped); 5.3 and 5.4 with
 * findsetreg (an instruction a jump lands past is no sure setter). What
 * each version makes of the setter: getobjname.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vm/lua/lua_code.h"

/* More than any function has: a larger count is memory that is not a Proto. */
#define MAX_CODE	(1 << 20)
#define MAX_LOCVARS	4096

enum found { NONE, LOCAL, GLOBAL, FIELD, METHOD, UPVALUE, CONSTANT };

struct code {
	const struct lua_code_facts *C;
	int pid;
	uint64_t proto;
	const uint32_t *ins;		/* code[0 .. the call] */
	uint8_t *loc;			/* locvars, read when first asked; NULL: not yet */
	int32_t nloc;
	char *out;
	size_t len;
	int bad;			/* memory did not read */
};

static uint32_t bits(uint32_t i, uint8_t pos, uint8_t n)
{
	return (i >> pos) & ((1u << n) - 1);
}

static const struct lua_op *op_of(const struct code *c, uint32_t i)
{
	static const struct lua_op unknown = { LOP_OTHER, 0 };
	uint32_t op = bits(i, 0, c->C->op_bits);

	return op < c->C->nops ? &c->C->ops[op] : &unknown;
}

#define A(c, i)		((int)bits(i, (c)->C->a_pos, (c)->C->a_bits))
#define B(c, i)		((int)bits(i, (c)->C->b_pos, (c)->C->b_bits))
#define C_(c, i)	((int)bits(i, (c)->C->c_pos, (c)->C->c_bits))
#define BX(c, i)	((int)bits(i, (c)->C->bx_pos, (c)->C->bx_bits))
#define AX(c, i)	((int)bits(i, (c)->C->ax_pos, (c)->C->ax_bits))
#define SBX(c, i)	(BX(c, i) - (c)->C->sbx_bias)

static int read_ptr(const struct code *c, int32_t off, uint64_t *v)
{
	return read_target(c->pid, c->proto + off, v, 8);
}

/* The string at TString pointer @ts into out; "?" for none (a stripped function). */
static void str_or_unknown(struct code *c, uint64_t ts)
{
	if (!ts)
		snprintf(c->out, c->len, "?");
	else if (vmstack_lua_string(&c->C->str, c->pid, ts, c->out, c->len))
		c->bad = 1;
}

/* Constant @idx: a string, into out (1), or not (0). */
static int kstring(struct code *c, int idx)
{
	uint64_t k, ts;
	uint8_t tt;

	if (read_ptr(c, c->C->p_k, &k) ||
	    read_target(c->pid, k + (uint64_t)idx * c->C->tv_size + c->C->tv_tt, &tt, 1) ||
	    read_target(c->pid, k + (uint64_t)idx * c->C->tv_size, &ts, 8)) {
		c->bad = 1;
		return 0;
	}
	if ((tt & 0x0f) != c->C->str.str_tag)
		return 0;
	str_or_unknown(c, ts);
	return 1;
}

/* luaF_getlocalname: the @n-th local alive at @pc, into out; 0 if none. */
static int local_name(struct code *c, int n, int pc)
{
	const struct lua_code_facts *C = c->C;
	uint64_t lv, ts;
	int32_t i, start, end;

	if (!c->loc) {
		if (read_target(c->pid, c->proto + C->p_sizelocvars, &c->nloc, 4) ||
		    c->nloc < 0 || c->nloc > MAX_LOCVARS || read_ptr(c, C->p_locvars, &lv)) {
			c->bad = 1;
			return 0;
		}
		c->loc = xmalloc((size_t)c->nloc * C->locvar_size + 1);
		if (c->nloc && read_target(c->pid, lv, c->loc, (size_t)c->nloc * C->locvar_size)) {
			c->nloc = 0;
			c->bad = 1;
			return 0;
		}
	}
	for (i = 0; i < c->nloc; i++) {
		const uint8_t *e = c->loc + (size_t)i * C->locvar_size;

		memcpy(&start, e + C->locvar_startpc, 4);
		memcpy(&end, e + C->locvar_endpc, 4);
		if (start > pc)
			break;
		if (pc < end && --n == 0) {
			memcpy(&ts, e, 8);
			str_or_unknown(c, ts);
			return 1;
		}
	}
	return 0;
}

/* Upvalue @u's name into out. */
static void upval_name(struct code *c, int u)
{
	uint64_t uv, ts;

	if (read_ptr(c, c->C->p_upvalues, &uv)) {
		c->bad = 1;
	} else if (!uv) {
		snprintf(c->out, c->len, "?");	/* 5.1 stripped: no names */
	} else if (read_target(c->pid, uv + (uint64_t)u * c->C->upval_size, &ts, 8)) {
		c->bad = 1;
	} else {
		str_or_unknown(c, ts);
	}
}

/* 5.1's symbexec, as getobjname uses it: where @reg was last set before @lastpc, or -1. */
static int symbexec51(struct code *c, int lastpc, int reg)
{
	int pc, last = -1;

	for (pc = 0; pc < lastpc; pc++) {
		uint32_t i = c->ins[pc];
		const struct lua_op *op = op_of(c, i);
		int a = A(c, i), dest;
		uint64_t sub, p;
		uint8_t nups;

		if (op->sets_a && a == reg)
			last = pc;
		switch (op->kind) {
		case LOP_LOADNIL:
			if (a <= reg && reg <= B(c, i))
				last = pc;
			break;
		case LOP_SELF:
			if (reg == a + 1)
				last = pc;
			break;
		case LOP_TFORLOOP51:
			if (reg >= a + 2)
				last = pc;
			break;
		case LOP_CALL:
		case LOP_TAILCALL:
			if (reg >= a)
				last = pc;
			break;
		case LOP_JMP:
		case LOP_FORJMP51:
			dest = pc + 1 + SBX(c, i);
			if (pc < dest && dest <= lastpc)
				pc += SBX(c, i);
			break;
		case LOP_SETLIST51:
			if (C_(c, i) == 0)
				pc++;		/* the next word is its count */
			break;
		case LOP_CLOSURE51:
			/* Its upvalues' MOVE/GETUPVAL words are not executed. */
			if (read_ptr(c, c->C->p_p, &p) ||
			    read_target(c->pid, p + 8 * (uint64_t)BX(c, i), &sub, 8) ||
			    read_target(c->pid, sub + c->C->p_nups, &nups, 1)) {
				c->bad = 1;
				return -1;
			}
			pc += nups;
			break;
		default:
			break;
		}
	}
	return last;
}

/*
 * 5.3's and 5.4's findsetreg. (5.4's first steps back over an MMBIN at
 * lastpc, an instruction not run; no lastpc here is one: the calls, and
 * the setters traced from them.)
 */
static int findsetreg(struct code *c, int lastpc, int reg)
{
	int pc, setreg = -1, jmptarget = 0;

	for (pc = 0; pc < lastpc; pc++) {
		uint32_t i = c->ins[pc];
		const struct lua_op *op = op_of(c, i);
		int a = A(c, i), change, dest;

		switch (op->kind) {
		case LOP_LOADNIL:
			change = a <= reg && reg <= a + B(c, i);
			break;
		case LOP_TFORCALL:
			change = reg >= a + 2;
			break;
		case LOP_CALL:
		case LOP_TAILCALL:
			change = reg >= a;
			break;
		case LOP_JMP:
			if (c->C->version == 54) {
				dest = pc + 1 + AX(c, i) - c->C->sj_bias;
				if (dest <= lastpc && dest > jmptarget)
					jmptarget = dest;
			} else {
				dest = pc + 1 + SBX(c, i);
				if (pc < dest && dest <= lastpc && dest > jmptarget)
					jmptarget = dest;
			}
			change = 0;
			break;
		default:
			change = op->sets_a && reg == a;
		}
		if (change)
			setreg = pc < jmptarget ? -1 : pc;
	}
	return setreg;
}

static enum found getobjname(struct code *c, int lastpc, int reg);

/* A key: 5.1/5.3 RK @k (a constant's string, else what its register holds if a constant name); "?" else. */
static void key_name(struct code *c, int pc, int k, int is_k)
{
	if (is_k) {
		if (!kstring(c, k))
			snprintf(c->out, c->len, "?");
	} else if (getobjname(c, pc, k) != CONSTANT) {
		snprintf(c->out, c->len, "?");
	}
}

static enum found getobjname51(struct code *c, int lastpc, int reg)
{
	int pc = symbexec51(c, lastpc, reg);
	uint32_t i;

	if (pc < 0)
		return NONE;
	i = c->ins[pc];
	switch (op_of(c, i)->kind) {
	case LOP_GETGLOBAL:
		return kstring(c, BX(c, i)) ? GLOBAL : NONE;
	case LOP_MOVE:
		/* 5.1 names the source register at the call, not at the move. */
		return B(c, i) < A(c, i) ? getobjname(c, lastpc, B(c, i)) : NONE;
	case LOP_GETTABLE:
	case LOP_SELF:
		/* 5.1's kname: a constant string, else "?" (no register traced). */
		if (!(C_(c, i) & (int)c->C->rk_bit) ||
		    !kstring(c, C_(c, i) & ~(int)c->C->rk_bit))
			snprintf(c->out, c->len, "?");
		return op_of(c, i)->kind == LOP_SELF ? METHOD : FIELD;
	case LOP_GETUPVAL:
		upval_name(c, B(c, i));
		return UPVALUE;
	default:
		return NONE;
	}
}

static enum found getobjname(struct code *c, int lastpc, int reg)
{
	int pc, v54 = c->C->version == 54, rk = (int)c->C->rk_bit;
	uint32_t i;

	if (c->bad)
		return NONE;
	if (local_name(c, reg + 1, lastpc))
		return LOCAL;
	if (c->C->version == 51)
		return getobjname51(c, lastpc, reg);
	pc = findsetreg(c, lastpc, reg);
	if (pc < 0)
		return NONE;
	i = c->ins[pc];
	switch (op_of(c, i)->kind) {
	case LOP_MOVE:
		return B(c, i) < A(c, i) ? getobjname(c, pc, B(c, i)) : NONE;
	case LOP_GETTABUP:	/* 5.4: C a constant; 5.3: RK */
		key_name(c, pc, v54 ? C_(c, i) : C_(c, i) & ~rk, v54 || (C_(c, i) & rk));
		return FIELD;
	case LOP_GETTABLE:	/* 5.4: C a register; 5.3: RK */
		key_name(c, pc, v54 ? C_(c, i) : C_(c, i) & ~rk, !v54 && (C_(c, i) & rk));
		return FIELD;
	case LOP_GETI:
		snprintf(c->out, c->len, "integer index");
		return FIELD;
	case LOP_GETFIELD:
		key_name(c, pc, C_(c, i), 1);
		return FIELD;
	case LOP_SELF:		/* 5.4: C a constant if k; 5.3: RK */
		key_name(c, pc, v54 ? C_(c, i) : C_(c, i) & ~rk,
			 v54 ? (int)bits(i, c->C->k_pos, 1) : !!(C_(c, i) & rk));
		return METHOD;
	case LOP_GETUPVAL:
		upval_name(c, B(c, i));
		return UPVALUE;
	case LOP_LOADK:
		return kstring(c, BX(c, i)) ? CONSTANT : NONE;
	case LOP_LOADKX:
		return kstring(c, AX(c, c->ins[pc + 1])) ? CONSTANT : NONE;
	default:
		return NONE;
	}
}

int vmstack_lua_callee_name(const struct lua_code_facts *C, int pid, uint64_t proto,
			    uint64_t savedpc, bool across, char *out, size_t len)
{
	struct code c = { C, pid, proto, NULL, NULL, 0, out, len, 0 };
	uint64_t code;
	int32_t size;
	uint32_t *ins;
	enum found got = NONE;
	unsigned int op, tm;
	int pc, kind;

	savedpc &= ~(uint64_t)3;	/* what the programs mark there */
	if (read_target(pid, proto + C->p_code, &code, 8) ||
	    read_target(pid, proto + C->p_sizecode, &size, 4) || size <= 0 || size > MAX_CODE ||
	    savedpc < code + 4 || (savedpc - code) % 4 || (savedpc - code) / 4 > (uint64_t)size)
		return -1;
	pc = (int)((savedpc - code) / 4) - 1;	/* currentpc: savedpc is past it */
	ins = xmalloc(((size_t)pc + 1) * 4);
	if (read_target(pid, code, ins, ((size_t)pc + 1) * 4)) {
		free(ins);
		return -1;
	}
	c.ins = ins;
	kind = op_of(&c, ins[pc])->kind;
	op = bits(ins[pc], 0, C->op_bits);
	tm = C->op_tm && op < C->nops ? C->op_tm[op] : 0;
	if (across == (kind == LOP_CALL || kind == LOP_TAILCALL)) {
		got = NONE;
	} else if (kind == LOP_CALL || kind == LOP_TAILCALL || kind == LOP_TFORLOOP51) {
		got = getobjname(&c, pc, A(&c, ins[pc]));
	} else if (kind == LOP_TFORCALL) {
		snprintf(out, len, "for iterator");
		got = FIELD;
	} else if (tm) {
		/* A metamethod the VM called for this instruction (5.4's MMBIN*: C's). */
		tm = tm == LUA_TM_FROM_C ? (unsigned int)C_(&c, ins[pc]) : tm - 1u;
		if (tm < C->ntm) {
			snprintf(out, len, "%s", C->tm_names[tm] + C->tm_skip);
			got = CONSTANT;
		}
	}
	free(ins);
	free(c.loc);
	return got == NONE || c.bad ? -1 : 0;
}

int vmstack_lua_site_name(const void *build, int pid, const struct vmstack_frame *callee,
			  const struct vmstack_frame *caller, char *out, size_t len)
{
	const struct lua_code_facts *C = build;

	/* Lua names no function a tail call put where its caller's call was. */
	if (callee->pc & VMSTACK_LUA_PC_TAIL)
		return -1;
	return vmstack_lua_callee_name(C, pid, caller->value, caller->pc,
				       (callee->pc & VMSTACK_LUA_ACROSS_MASK) == VMSTACK_LUA_PC_FROM_LUA,
				       out, len);
}
