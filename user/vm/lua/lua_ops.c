// SPDX-License-Identifier: GPL-2.0
/*
 * Each PUC Lua version's opcodes as naming sees them (lopcodes.h's order,
 * lopcodes.c's A mode) and its instruction and Proto layout on x86-64 as
 * GCC lays it out: 5.1.5 (Redis 7.0's deps/lua, ldebug.c 2.29.1.6 and
 * lopcodes.c), 5.2.4 (lopcodes.[ch], lobject.h, ldebug.c as at tag v5.2.3:
 * 5.2.4 changed none of what is used here), 5.3.6 and 5.4.4 (tags
 * v5.3.6, v5.4.4: lopcodes.[ch], lobject.h).
 */
#include "vm/lua/lua_code.h"

#define A(k)	{ LOP_##k, 1 }		/* sets R(A) */
#define N(k)	{ LOP_##k, 0 }

static const struct lua_op ops51[] = {
	A(MOVE), A(OTHER) /* LOADK: 5.1 names no constant */, A(OTHER) /* LOADBOOL */,
	A(LOADNIL), A(GETUPVAL), A(GETGLOBAL), A(GETTABLE), N(OTHER) /* SETGLOBAL */,
	N(OTHER) /* SETUPVAL */, N(OTHER) /* SETTABLE */, A(OTHER) /* NEWTABLE */, A(SELF),
	/* ADD SUB MUL DIV MOD POW UNM NOT LEN CONCAT */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER), A(OTHER),
	N(JMP), N(OTHER) /* EQ */, N(OTHER) /* LT */, N(OTHER) /* LE */,
	A(OTHER) /* TEST: A mode in 5.1.5's table */, A(OTHER) /* TESTSET */,
	A(CALL), A(TAILCALL), N(OTHER) /* RETURN */, A(FORJMP51) /* FORLOOP */,
	A(FORJMP51) /* FORPREP */, N(TFORLOOP51), N(SETLIST51), N(OTHER) /* CLOSE */,
	A(CLOSURE51), A(OTHER) /* VARARG */,
};

/*
 * 5.2: 5.3's without the integer and bitwise operators. Its findsetreg
 * counts a TEST on the register as setting it (A mode 0 in lopcodes.c):
 * marked here as setting A, which findsetreg then does the same with.
 */
static const struct lua_op ops52[] = {
	A(MOVE), A(LOADK), A(LOADKX), A(OTHER) /* LOADBOOL */, A(LOADNIL), A(GETUPVAL),
	A(GETTABUP), A(GETTABLE), N(OTHER) /* SETTABUP */, N(OTHER) /* SETUPVAL */,
	N(OTHER) /* SETTABLE */, A(OTHER) /* NEWTABLE */, A(SELF),
	/* ADD SUB MUL DIV MOD POW UNM NOT LEN CONCAT */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER), A(OTHER),
	N(JMP), N(OTHER) /* EQ */, N(OTHER) /* LT */, N(OTHER) /* LE */,
	A(OTHER) /* TEST: see above */, A(OTHER) /* TESTSET */, A(CALL), A(TAILCALL),
	N(OTHER) /* RETURN */, A(OTHER) /* FORLOOP */, A(OTHER) /* FORPREP */, N(TFORCALL),
	A(OTHER) /* TFORLOOP */, N(OTHER) /* SETLIST */, A(OTHER) /* CLOSURE */,
	A(OTHER) /* VARARG */, N(OTHER) /* EXTRAARG */,
};

static const struct lua_op ops53[] = {
	A(MOVE), A(LOADK), A(LOADKX), A(OTHER) /* LOADBOOL */, A(LOADNIL), A(GETUPVAL),
	A(GETTABUP), A(GETTABLE), N(OTHER) /* SETTABUP */, N(OTHER) /* SETUPVAL */,
	N(OTHER) /* SETTABLE */, A(OTHER) /* NEWTABLE */, A(SELF),
	/* ADD SUB MUL MOD POW DIV IDIV BAND BOR BXOR SHL SHR UNM BNOT NOT LEN CONCAT */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER),
	N(JMP), N(OTHER) /* EQ */, N(OTHER) /* LT */, N(OTHER) /* LE */, N(OTHER) /* TEST */,
	A(OTHER) /* TESTSET */, A(CALL), A(TAILCALL), N(OTHER) /* RETURN */,
	A(OTHER) /* FORLOOP */, A(OTHER) /* FORPREP */, N(TFORCALL), A(OTHER) /* TFORLOOP */,
	N(OTHER) /* SETLIST */, A(OTHER) /* CLOSURE */, A(OTHER) /* VARARG */,
	N(OTHER) /* EXTRAARG */,
};

static const struct lua_op ops54[] = {
	A(MOVE), A(OTHER) /* LOADI */, A(OTHER) /* LOADF */, A(LOADK), A(LOADKX),
	A(OTHER) /* LOADFALSE */, A(OTHER) /* LFALSESKIP */, A(OTHER) /* LOADTRUE */,
	A(LOADNIL), A(GETUPVAL), N(OTHER) /* SETUPVAL */, A(GETTABUP), A(GETTABLE), A(GETI),
	A(GETFIELD), N(OTHER) /* SETTABUP */, N(OTHER) /* SETTABLE */, N(OTHER) /* SETI */,
	N(OTHER) /* SETFIELD */, A(OTHER) /* NEWTABLE */, A(SELF),
	/* ADDI ADDK SUBK MULK MODK POWK DIVK IDIVK BANDK BORK BXORK SHRI SHLI */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	/* ADD SUB MUL MOD POW DIV IDIV BAND BOR BXOR SHL SHR */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	N(OTHER), N(OTHER), N(OTHER) /* MMBIN MMBINI MMBINK */,
	/* UNM BNOT NOT LEN CONCAT */
	A(OTHER), A(OTHER), A(OTHER), A(OTHER), A(OTHER),
	N(OTHER) /* CLOSE */, N(OTHER) /* TBC */, N(JMP),
	/* EQ LT LE EQK EQI LTI LEI GTI GEI TEST */
	N(OTHER), N(OTHER), N(OTHER), N(OTHER), N(OTHER), N(OTHER), N(OTHER), N(OTHER),
	N(OTHER), N(OTHER),
	A(OTHER) /* TESTSET */, A(CALL), A(TAILCALL),
	N(OTHER), N(OTHER), N(OTHER) /* RETURN RETURN0 RETURN1 */,
	A(OTHER) /* FORLOOP */, A(OTHER) /* FORPREP */, N(OTHER) /* TFORPREP */, N(TFORCALL),
	A(OTHER) /* TFORLOOP */, N(OTHER) /* SETLIST */, A(OTHER) /* CLOSURE */,
	A(OTHER) /* VARARG */, A(OTHER) /* VARARGPREP */, N(OTHER) /* EXTRAARG */,
};

/*
 * Metamethods by op (lopcodes.h's order), 1 + ltm.h's TM: ldebug.c's
 * getfuncname (5.2.3) and funcnamefromcode (5.3.6, 5.4.4), the ops that
 * call one through a metamethod. TM orders: 5.2 INDEX NEWINDEX GC MODE
 * LEN EQ ADD SUB MUL DIV MOD POW UNM LT LE CONCAT CALL; 5.3 and 5.4
 * INDEX NEWINDEX GC MODE LEN EQ ADD SUB MUL MOD POW DIV IDIV BAND BOR
 * BXOR SHL SHR UNM BNOT LT LE CONCAT CALL (5.4: CLOSE).
 */
#define TM(x)	(1 + (x))
static const char *const tm52[] = {
	"__index", "__newindex", "__gc", "__mode", "__len", "__eq", "__add", "__sub", "__mul",
	"__div", "__mod", "__pow", "__unm", "__lt", "__le", "__concat", "__call",
};
static const char *const tm53[] = {
	"__index", "__newindex", "__gc", "__mode", "__len", "__eq", "__add", "__sub", "__mul",
	"__mod", "__pow", "__div", "__idiv", "__band", "__bor", "__bxor", "__shl", "__shr",
	"__unm", "__bnot", "__lt", "__le", "__concat", "__call", "__close",
};
static const uint8_t op_tm52[40] = {
	[12] = TM(0), [6] = TM(0), [7] = TM(0),		/* SELF GETTABUP GETTABLE */
	[8] = TM(1), [10] = TM(1),			/* SETTABUP SETTABLE */
	[24] = TM(5),					/* EQ */
	[13] = TM(6), [14] = TM(7), [15] = TM(8), [16] = TM(9), [17] = TM(10),
	[18] = TM(11),					/* ADD SUB MUL DIV MOD POW */
	[19] = TM(12), [21] = TM(4),			/* UNM LEN */
	[25] = TM(13), [26] = TM(14), [22] = TM(15),	/* LT LE CONCAT */
};
static const uint8_t op_tm53[47] = {
	[12] = TM(0), [6] = TM(0), [7] = TM(0),		/* SELF GETTABUP GETTABLE */
	[8] = TM(1), [10] = TM(1),			/* SETTABUP SETTABLE */
	/* ADD SUB MUL MOD POW DIV IDIV BAND BOR BXOR SHL SHR: ORDER OP, ORDER TM */
	[13] = TM(6), [14] = TM(7), [15] = TM(8), [16] = TM(9), [17] = TM(10),
	[18] = TM(11), [19] = TM(12), [20] = TM(13), [21] = TM(14), [22] = TM(15),
	[23] = TM(16), [24] = TM(17),
	[25] = TM(18), [26] = TM(19), [28] = TM(4),	/* UNM BNOT LEN */
	[29] = TM(22), [31] = TM(5),			/* CONCAT EQ */
	[32] = TM(20), [33] = TM(21),			/* LT LE */
};
static const uint8_t op_tm54[83] = {
	[20] = TM(0), [11] = TM(0), [12] = TM(0),	/* SELF GETTABUP GETTABLE */
	[13] = TM(0), [14] = TM(0),			/* GETI GETFIELD */
	[15] = TM(1), [16] = TM(1), [17] = TM(1), [18] = TM(1),	/* SETTABUP SETTABLE SETI SETFIELD */
	[46] = LUA_TM_FROM_C, [47] = LUA_TM_FROM_C, [48] = LUA_TM_FROM_C,	/* MMBIN MMBINI MMBINK */
	[49] = TM(18), [50] = TM(19), [52] = TM(4),	/* UNM BNOT LEN */
	[53] = TM(22), [57] = TM(5),			/* CONCAT EQ */
	[58] = TM(20), [62] = TM(20), [64] = TM(20),	/* LT LTI GTI */
	[59] = TM(21), [63] = TM(21), [65] = TM(21),	/* LE LEI GEI */
	[54] = TM(24), [70] = TM(24),			/* CLOSE RETURN */
};
#define TMS(ops, names, skip) \
	.op_tm = (ops), .tm_names = (names), .ntm = sizeof(names) / sizeof((names)[0]), \
	.tm_skip = (skip)

/* 5.1 to 5.3: op 6 bits, A 8 at 6, C 9 at 14, B 9 at 23, Bx 18 at 14. */
#define FIELDS_5153 \
	.op_bits = 6, .a_pos = 6, .a_bits = 8, .b_pos = 23, .b_bits = 9, .c_pos = 14, \
	.c_bits = 9, .bx_pos = 14, .bx_bits = 18, .ax_pos = 6, .ax_bits = 26, \
	.rk_bit = 1u << 8, .sbx_bias = (1 << 17) - 1

const struct lua_code_facts vmstack_lua51_code = {
	.version = 51, .ops = ops51, .nops = sizeof(ops51) / sizeof(ops51[0]),
	FIELDS_5153,
	.p_k = 0x10, .p_code = 0x18, .p_p = 0x20, .p_lineinfo = 0x28, .p_locvars = 0x30,
	.p_upvalues = 0x38, .p_sizeupvalues = 0x48, .p_sizecode = 0x50,
	.p_sizelineinfo = 0x54, .p_sizelocvars = 0x5c, .p_nups = 0x70,
	.upval_size = 8,
	.locvar_size = 16, .locvar_startpc = 8, .locvar_endpc = 12,
	.tv_size = 16, .tv_tt = 8,
	.str = { .p_linedefined = 0x60, .p_source = 0x40, .gc_tt = 0x08, .str_tag = 4,
		 .ts_len = 0x10, .ts_contents = 0x18 },
};

const struct lua_code_facts vmstack_lua52_code = {
	.version = 52, .ops = ops52, .nops = sizeof(ops52) / sizeof(ops52[0]),
	TMS(op_tm52, tm52, 0),
	FIELDS_5153,
	.p_k = 0x10, .p_code = 0x18, .p_p = 0x20, .p_lineinfo = 0x28, .p_locvars = 0x30,
	.p_upvalues = 0x38, .p_sizeupvalues = 0x50, .p_sizecode = 0x58,
	.p_sizelineinfo = 0x5c, .p_sizelocvars = 0x64,
	.upval_size = 16,
	.locvar_size = 16, .locvar_startpc = 8, .locvar_endpc = 12,
	.tv_size = 16, .tv_tt = 8,
	.str = { .p_linedefined = 0x68, .p_source = 0x48, .gc_tt = 0x08, .str_tag = 4,
		 .ts_len = 0x10, .ts_contents = 0x18 },
};

const struct lua_code_facts vmstack_lua53_code = {
	.version = 53, .ops = ops53, .nops = sizeof(ops53) / sizeof(ops53[0]),
	TMS(op_tm53, tm53, 0),
	FIELDS_5153,
	.p_sizeupvalues = 0x10, .p_sizecode = 0x18, .p_sizelineinfo = 0x1c,
	.p_sizelocvars = 0x24, .p_k = 0x30, .p_code = 0x38, .p_p = 0x40,
	.p_lineinfo = 0x48, .p_locvars = 0x50, .p_upvalues = 0x58,
	.upval_size = 16,
	.locvar_size = 16, .locvar_startpc = 8, .locvar_endpc = 12,
	.tv_size = 16, .tv_tt = 8,
	.str = { .p_linedefined = 0x28, .p_source = 0x68, .gc_tt = 0x08, .str_tag = 4, .shr_tt = 4, .ts_shrlen = 0x0b, .ts_len = 0x10,
		 .ts_contents = 0x18 },
};

/* 5.4: op 7 bits, A 8 at 7, k at 15, B 8 at 16, C 8 at 24, Bx 17 at 15, sJ 25 at 7. */
const struct lua_code_facts vmstack_lua54_code = {
	.version = 54, .ops = ops54, .nops = sizeof(ops54) / sizeof(ops54[0]),
	TMS(op_tm54, tm53, 2),
	.op_bits = 7, .a_pos = 7, .a_bits = 8, .k_pos = 15, .b_pos = 16, .b_bits = 8,
	.c_pos = 24, .c_bits = 8, .bx_pos = 15, .bx_bits = 17, .ax_pos = 7, .ax_bits = 25,
	.sbx_bias = (1 << 16) - 1, .sj_bias = (1 << 24) - 1,
	.p_sizeupvalues = 0x10, .p_sizecode = 0x18, .p_sizelineinfo = 0x1c,
	.p_sizelocvars = 0x24, .p_sizeabslineinfo = 0x28, .p_k = 0x38, .p_code = 0x40,
	.p_p = 0x48, .p_upvalues = 0x50, .p_lineinfo = 0x58, .p_abslineinfo = 0x60,
	.p_locvars = 0x68,
	.upval_size = 16,
	.locvar_size = 16, .locvar_startpc = 8, .locvar_endpc = 12,
	.tv_size = 16, .tv_tt = 8,
	.str = { .p_linedefined = 0x2c, .p_source = 0x70, .gc_tt = 0x08, .str_tag = 4, .shr_tt = 4, .ts_shrlen = 0x0b, .ts_len = 0x10,
		 .ts_contents = 0x18 },
};
