// SPDX-License-Identifier: GPL-2.0
/*
 * Lua's call-site names (vm/lua/lua_code.h) on bytecode made by hand, one
 * Proto per version in this process's own memory (read as pid getpid()),
 * laid out by the version's facts: each way a called register is loaded
 * (a global, a field, a method, an integer index, a key held in a register
 * loaded from a constant, a local through a move, an upvalue), the for
 * iterator, the setters symbolic execution must skip (5.1's CLOSURE
 * upvalue words) or distrust (a setter a jump lands past), and the line
 * an instruction is at (5.4's relative lines from an absolute one).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "vm/lua/lua_code.h"

struct fake {
	uint8_t proto[0x100], sub[0x100];
	uint64_t subs[1];		/* Proto.p: the functions defined in it */
	uint32_t code[32];
	uint8_t k[8][16], up[4][16], loc[4][16];
	uint8_t str[8][0x40];
	int32_t lines[32];
	int8_t rel[32];
	int32_t abs[2];
	unsigned int nstr;
};

static void put(uint8_t *base, int32_t off, const void *v, size_t n)
{
	memcpy(base + off, v, n);
}

static void put_ptr(uint8_t *base, int32_t off, const void *p)
{
	uint64_t v = (uintptr_t)p;

	put(base, off, &v, 8);
}

static void put_i32(uint8_t *base, int32_t off, int32_t v)
{
	put(base, off, &v, 4);
}

/* A TString of @s, as version @C keeps a short string. */
static const void *str(struct fake *F, const struct lua_code_facts *C, const char *s)
{
	uint8_t *t = F->str[F->nstr++];
	uint64_t len = strlen(s);

	t[C->str.gc_tt] = C->str.shr_tt ? C->str.shr_tt : C->str.str_tag;
	if (C->str.shr_tt)
		t[C->str.ts_shrlen] = (uint8_t)len;
	else
		put(t, C->str.ts_len, &len, 8);
	memcpy(t + C->str.ts_contents, s, len);
	return t;
}

static void kstr(struct fake *F, const struct lua_code_facts *C, int i, const char *s)
{
	put_ptr(F->k[i], 0, str(F, C, s));
	F->k[i][C->tv_tt] = C->version == 51 ? 4 : 0x44;	/* a (short) string */
}

/* Proto fields the analysis reads; @n instructions of code. */
static void proto(struct fake *F, const struct lua_code_facts *C, int n)
{
	put_ptr(F->proto, C->p_code, F->code);
	put_i32(F->proto, C->p_sizecode, n);
	put_ptr(F->proto, C->p_k, F->k);
	put_ptr(F->proto, C->p_upvalues, F->up);
	put_i32(F->proto, C->p_sizeupvalues, 1);
	put_ptr(F->proto, C->p_locvars, F->loc);
	F->subs[0] = (uintptr_t)F->sub;
	put_ptr(F->proto, C->p_p, F->subs);
	put_ptr(F->proto, C->str.p_linedefined, NULL);
	put_i32(F->proto, C->str.p_linedefined, 10);
	put_ptr(F->up[0], 0, str(F, C, "up"));
}

/* Local @reg's name @s, alive in [@from, @to). */
static void local(struct fake *F, int i, const char *s, const struct lua_code_facts *C,
		  int from, int to)
{
	put_ptr(F->loc[i], 0, str(F, C, s));
	put_i32(F->loc[i], C->locvar_startpc, from);
	put_i32(F->loc[i], C->locvar_endpc, to);
	put_i32(F->proto, C->p_sizelocvars, i + 1);
}

/*
 * What the instruction at @pc calls, or "-" if Lua names nothing: a call
 * in the caller's luaV_execute, else across C frames (a metamethod).
 */
static const char *at(struct fake *F, const struct lua_code_facts *C, int pc)
{
	static char out[64];
	uintptr_t savedpc = (uintptr_t)&F->code[pc + 1];

	if (vmstack_lua_callee_name(C, getpid(), (uintptr_t)F->proto, savedpc, false, out,
				    sizeof(out)) &&
	    vmstack_lua_callee_name(C, getpid(), (uintptr_t)F->proto, savedpc, true, out,
				    sizeof(out)))
		return "-";
	return out;
}

/* 5.1 and 5.3: op 6 bits, A at 6, C at 14, B at 23, Bx at 14. */
static uint32_t abc5(int op, int a, int b, int c)
{
	return (uint32_t)op | (uint32_t)a << 6 | (uint32_t)c << 14 | (uint32_t)b << 23;
}

static uint32_t abx5(int op, int a, int bx)
{
	return (uint32_t)op | (uint32_t)a << 6 | (uint32_t)bx << 14;
}

/* 5.4: op 7 bits, A at 7, k at 15, B at 16, C at 24, Bx at 15, sJ at 7. */
static uint32_t abc54(int op, int a, int b, int c, int k)
{
	return (uint32_t)op | (uint32_t)a << 7 | (uint32_t)k << 15 | (uint32_t)b << 16 |
	       (uint32_t)c << 24;
}

UNIT_TEST(lua51_callee_names)
{
	const struct lua_code_facts *C = &vmstack_lua51_code;
	struct fake *F = calloc(1, sizeof(*F));
	uint32_t *c = F->code;
	int i;

	proto(F, C, 20);
	kstr(F, C, 0, "g");
	kstr(F, C, 1, "m");
	kstr(F, C, 2, "f");
	kstr(F, C, 3, "h");
	local(F, 0, "self", C, 6, 20);
	local(F, 1, "lv", C, 6, 20);
	F->sub[C->p_nups] = 1;		/* the closure at 11 has one upvalue word */
	c[0] = abx5(5, 0, 0);		/* GETGLOBAL R0 "g" */
	c[1] = abc5(28, 0, 1, 1);	/* CALL R0 */
	c[2] = abc5(11, 0, 1, 256 | 1);	/* SELF R0 R1 K"m" */
	c[3] = abc5(28, 0, 2, 1);
	c[4] = abc5(6, 0, 1, 256 | 2);	/* GETTABLE R0 R1 K"f" */
	c[5] = abc5(28, 0, 1, 1);
	c[6] = abc5(0, 2, 1, 0);	/* MOVE R2 R1 (local lv) */
	c[7] = abc5(28, 2, 1, 1);
	c[8] = abc5(4, 3, 0, 0);	/* GETUPVAL R3 U0 */
	c[9] = abc5(28, 3, 1, 1);
	c[10] = abx5(5, 5, 3);		/* GETGLOBAL R5 "h" */
	c[11] = abx5(36, 4, 0);		/* CLOSURE R4 P0, then its upvalue word */
	c[12] = abc5(0, 5, 3, 0);	/* not executed: R5 stays "h" */
	c[13] = abc5(28, 5, 1, 1);
	c[14] = abc5(30, 0, 1, 0);	/* RETURN: no call */
	for (i = 0; i < 20; i++)
		F->lines[i] = 50 + i;
	put_ptr(F->proto, C->p_lineinfo, F->lines);
	CHECK(!strcmp(at(F, C, 1), "g"));
	CHECK(!strcmp(at(F, C, 3), "m"));
	CHECK(!strcmp(at(F, C, 5), "f"));
	CHECK(!strcmp(at(F, C, 7), "lv"));
	CHECK(!strcmp(at(F, C, 9), "up"));
	CHECK(!strcmp(at(F, C, 13), "h"));
	CHECK(!strcmp(at(F, C, 14), "-"));
	CHECK(vmstack_lua_current_line(C, getpid(), (uintptr_t)F->proto,
				       (uintptr_t)&F->code[8]) == 57);
	free(F);
}

UNIT_TEST(lua53_callee_names)
{
	const struct lua_code_facts *C = &vmstack_lua53_code;
	struct fake *F = calloc(1, sizeof(*F));
	uint32_t *c = F->code;

	proto(F, C, 20);
	kstr(F, C, 0, "g");
	kstr(F, C, 1, "key");
	kstr(F, C, 2, "m");
	c[0] = abc5(6, 0, 0, 256 | 0);	/* GETTABUP R0 U0 K"g" */
	c[1] = abc5(36, 0, 1, 1);	/* CALL R0 */
	c[2] = abx5(1, 2, 1);		/* LOADK R2 "key" */
	c[3] = abc5(7, 1, 0, 2);	/* GETTABLE R1 R0 R2: key by register */
	c[4] = abc5(36, 1, 1, 1);
	c[5] = abc5(12, 3, 0, 256 | 2);	/* SELF R3 R0 K"m" */
	c[6] = abc5(36, 3, 2, 1);
	c[7] = abx5(30, 0, 1 + 131071);	/* JMP +1: lands past 8 */
	c[8] = abc5(5, 5, 0, 0);	/* GETUPVAL R5: not a sure setter */
	c[9] = abc5(36, 5, 1, 1);
	c[10] = abc5(5, 6, 0, 0);	/* GETUPVAL R6 U0 */
	c[11] = abc5(36, 6, 1, 1);
	c[12] = abc5(41, 7, 0, 1);	/* TFORCALL */
	CHECK(!strcmp(at(F, C, 1), "g"));
	CHECK(!strcmp(at(F, C, 4), "key"));
	CHECK(!strcmp(at(F, C, 6), "m"));
	CHECK(!strcmp(at(F, C, 9), "-"));
	CHECK(!strcmp(at(F, C, 11), "up"));
	CHECK(!strcmp(at(F, C, 12), "for iterator"));
	free(F);
}

UNIT_TEST(lua54_callee_names)
{
	const struct lua_code_facts *C = &vmstack_lua54_code;
	struct fake *F = calloc(1, sizeof(*F));
	uint32_t *c = F->code;
	int i;

	proto(F, C, 20);
	kstr(F, C, 0, "g");
	kstr(F, C, 1, "f");
	kstr(F, C, 2, "m");
	kstr(F, C, 3, "key");
	local(F, 0, "lv", C, 14, 20);
	c[0] = abc54(11, 0, 0, 0, 0);	/* GETTABUP R0 U0 K"g" */
	c[1] = abc54(68, 0, 1, 1, 0);	/* CALL R0 */
	c[2] = abc54(14, 1, 0, 1, 0);	/* GETFIELD R1 R0 K"f" */
	c[3] = abc54(68, 1, 1, 1, 0);
	c[4] = abc54(13, 2, 0, 1, 0);	/* GETI R2 R0 1 */
	c[5] = abc54(68, 2, 1, 1, 0);
	c[6] = abc54(20, 3, 0, 2, 1);	/* SELF R3 R0 K"m" (k) */
	c[7] = abc54(68, 3, 2, 1, 0);
	c[8] = (uint32_t)3 | 5u << 7 | 3u << 15;	/* LOADK R5 "key" */
	c[9] = abc54(12, 4, 0, 5, 0);	/* GETTABLE R4 R0 R5 */
	c[10] = abc54(68, 4, 1, 1, 0);
	c[11] = (uint32_t)56 | (uint32_t)(1 + (1 << 24) - 1) << 7;	/* JMP +1 */
	c[12] = abc54(9, 6, 0, 0, 0);	/* GETUPVAL R6: a jump lands past it */
	c[13] = abc54(68, 6, 1, 1, 0);
	c[14] = abc54(0, 1, 0, 0, 0);	/* MOVE R1 R0 (local lv) */
	c[15] = abc54(68, 1, 1, 1, 0);
	c[16] = abc54(76, 7, 0, 1, 0);	/* TFORCALL */
	CHECK(!strcmp(at(F, C, 1), "g"));
	CHECK(!strcmp(at(F, C, 3), "f"));
	CHECK(!strcmp(at(F, C, 5), "integer index"));
	CHECK(!strcmp(at(F, C, 7), "m"));
	CHECK(!strcmp(at(F, C, 10), "key"));
	CHECK(!strcmp(at(F, C, 13), "-"));
	CHECK(!strcmp(at(F, C, 15), "lv"));
	CHECK(!strcmp(at(F, C, 16), "for iterator"));
	/* Lines: from 10 by one a word, an absolute 100 at pc 8 (its byte a marker). */
	for (i = 0; i < 20; i++)
		F->rel[i] = 1;
	F->rel[8] = -128;
	F->abs[0] = 8;
	F->abs[1] = 100;
	put_ptr(F->proto, C->p_lineinfo, F->rel);
	put_ptr(F->proto, C->p_abslineinfo, F->abs);
	put_i32(F->proto, C->p_sizeabslineinfo, 1);
	CHECK(vmstack_lua_current_line(C, getpid(), (uintptr_t)F->proto,
				       (uintptr_t)&F->code[6]) == 16);
	CHECK(vmstack_lua_current_line(C, getpid(), (uintptr_t)F->proto,
				       (uintptr_t)&F->code[11]) == 102);
	free(F);
}
