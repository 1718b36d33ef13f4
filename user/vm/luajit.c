// SPDX-License-Identifier: GPL-2.0
/*
 * LuaJIT 2.1 on x86-64: find its interpreter in a mapping, describe its
 * frames to the module, name its frames. What a build's structures look
 * like is a struct luajit_layout, one per build, chosen by build-id; a
 * LuaJIT this file has no layout for is named and left native-only.
 *
 * Names of fields and constants are LuaJIT's own (src/lj_obj.h,
 * lj_frame.h, lj_jit.h, lj_dispatch.h, vm_x64.dasc); the values of each
 * layout were checked against the source at the build's revision and the
 * installed files (shared notes on VM internals, section A).
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "luajit.h"
#include "runtime.h"
#include "symbols.h"
#include "util.h"

struct luajit_layout {
	const char *name;
	/* The interpreter's C frame (vm_x64.dasc: CFRAME_SIZE, SAVE_*). */
	uint32_t cframe_size;		/* its FDE: CFA = rsp + this */
	int32_t cframe_nres;		/* SAVE_NRES: < 0, a cframe without Lua frame */
	int32_t cframe_l;		/* SAVE_L: the lua_State */
	int32_t cframe_prev;		/* SAVE_CFRAME: the previous cframe */
	int32_t cframe_rbp, cframe_ret;	/* the C caller's rbp, return address */
	uint64_t cframe_rawmask;	/* flag bits of a cframe pointer: ~CFRAME_RAWMASK */
	/* GC objects: GCHeader.gct holds ~LJ_Txxx. */
	int32_t gct;
	uint8_t gct_thread, gct_trace;
	uint64_t gcvmask;		/* LJ_GCVMASK: the pointer in a tagged slot */
	/* lua_State */
	int32_t l_base, l_stack, l_cframe;
	/* global_State (G), reached from DISPATCH (r14) = G + g2disp */
	int32_t g2disp;			/* GG_G2DISP */
	int32_t g_vmstate, g_cur_l, g_jit_base;
	int32_t g_j_trace, g_j_sizetrace;	/* jit_State's trace[], sizetrace, from G */
	/* Lua frames (lj_frame.h, FR2): link at base - 1, function at base - 2 */
	uint32_t frame_typep;		/* FRAME_TYPEP: link type bits */
	uint32_t frame_pcmask;		/* link & this == 0: a return PC */
	uint8_t frame_c, frame_cont, frame_varg, frame_cp;
	int32_t frame_contv;		/* a continuation frame's continuation, from the link */
	uint64_t cont_ffi_callback;	/* LJ_CONT_FFI_CALLBACK */
	uint32_t stack_max_bytes;	/* a bound on a Lua stack's size */
	/* GCfunc */
	int32_t fn_ffid, fn_pc;
	uint8_t ff_lua, ff_c;
	/* GCproto: the bytecode follows it */
	uint32_t proto_size;
	int32_t pt_sizebc, pt_chunkname, pt_firstline, pt_numline, pt_lineinfo;
	/* GCstr */
	int32_t str_len, str_data;
	/* GCtrace */
	int32_t tr_startpt, tr_startpc, tr_szmcode, tr_mcode, tr_traceno;
	int32_t tr_link, tr_root, tr_nextside;	/* TraceNo1 (u16) each */
	/* Builtin ("fast") functions by ffid: a table made when LuaJIT is built. */
	const char *const *ffid_names;
	size_t nffid;
};

/*
 * Builtin names of Debian 12's 2.1.0~beta3+git20220320, as
 * jit.util.funcinfo() reports them (tests/workloads/lua/ffid.lua; the unit
 * test compares the two). Methods: "file:read"; metamethods of FFI cdata
 * and C library namespaces: "cdata.__call", "clib.__index".
 */
static const char *const debian12_ffid_names[] = {
	[2] = "assert", [3] = "type", [4] = "next", [5] = "pairs", [7] = "ipairs",
	[8] = "getmetatable", [9] = "setmetatable", [10] = "getfenv", [11] = "setfenv",
	[12] = "rawget", [13] = "rawset", [14] = "rawequal", [15] = "unpack", [16] = "select",
	[17] = "tonumber", [18] = "tostring", [19] = "error", [20] = "pcall", [21] = "xpcall",
	[22] = "loadfile", [23] = "load", [24] = "loadstring", [25] = "dofile",
	[26] = "gcinfo", [27] = "collectgarbage", [28] = "newproxy", [29] = "print",
	[30] = "coroutine.status", [31] = "coroutine.running", [32] = "coroutine.isyieldable",
	[33] = "coroutine.create", [34] = "coroutine.yield", [35] = "coroutine.resume",
	[37] = "coroutine.wrap", [38] = "math.abs", [39] = "math.floor", [40] = "math.ceil",
	[41] = "math.sqrt", [42] = "math.log10", [43] = "math.exp", [44] = "math.sin",
	[45] = "math.cos", [46] = "math.tan", [47] = "math.asin", [48] = "math.acos",
	[49] = "math.atan", [50] = "math.sinh", [51] = "math.cosh", [52] = "math.tanh",
	[53] = "math.frexp", [54] = "math.modf", [55] = "math.log", [56] = "math.atan2",
	[57] = "math.pow", [58] = "math.fmod", [59] = "math.ldexp", [60] = "math.min",
	[61] = "math.max", [62] = "math.random", [63] = "math.randomseed", [64] = "bit.tobit",
	[65] = "bit.bnot", [66] = "bit.bswap", [67] = "bit.lshift", [68] = "bit.rshift",
	[69] = "bit.arshift", [70] = "bit.rol", [71] = "bit.ror", [72] = "bit.band",
	[73] = "bit.bor", [74] = "bit.bxor", [75] = "bit.tohex", [76] = "string.byte",
	[77] = "string.char", [78] = "string.sub", [79] = "string.rep",
	[80] = "string.reverse", [81] = "string.lower", [82] = "string.upper",
	[83] = "string.dump", [84] = "string.find", [85] = "string.match",
	[87] = "string.gmatch", [88] = "string.gsub", [89] = "string.format",
	[90] = "table.maxn", [91] = "table.insert", [92] = "table.concat",
	[93] = "table.sort", [96] = "file:close", [97] = "file:read", [98] = "file:write",
	[99] = "file:flush", [100] = "file:seek", [101] = "file:setvbuf",
	[102] = "file:lines", [103] = "file:__gc", [104] = "file:__tostring",
	[105] = "io.open", [106] = "io.popen", [107] = "io.tmpfile", [108] = "io.close",
	[109] = "io.read", [110] = "io.write", [111] = "io.flush", [112] = "io.input",
	[113] = "io.output", [114] = "io.lines", [115] = "io.type", [116] = "os.execute",
	[117] = "os.remove", [118] = "os.rename", [119] = "os.tmpname", [120] = "os.getenv",
	[121] = "os.exit", [122] = "os.clock", [123] = "os.date", [124] = "os.time",
	[125] = "os.difftime", [126] = "os.setlocale", [127] = "debug.getregistry",
	[128] = "debug.getmetatable", [129] = "debug.setmetatable", [130] = "debug.getfenv",
	[131] = "debug.setfenv", [132] = "debug.getinfo", [133] = "debug.getlocal",
	[134] = "debug.setlocal", [135] = "debug.getupvalue", [136] = "debug.setupvalue",
	[137] = "debug.upvalueid", [138] = "debug.upvaluejoin", [139] = "debug.sethook",
	[140] = "debug.gethook", [141] = "debug.debug", [142] = "debug.traceback",
	[143] = "jit.on", [144] = "jit.off", [145] = "jit.flush", [146] = "jit.status",
	[147] = "jit.security", [148] = "jit.attach", [149] = "jit.util.funcinfo",
	[150] = "jit.util.funcbc", [151] = "jit.util.funck", [152] = "jit.util.funcuvname",
	[153] = "jit.util.traceinfo", [154] = "jit.util.traceir", [155] = "jit.util.tracek",
	[156] = "jit.util.tracesnap", [157] = "jit.util.tracemc",
	[158] = "jit.util.traceexitstub", [159] = "jit.util.ircalladdr",
	[160] = "jit.opt.start", [164] = "cdata.__index", [165] = "cdata.__newindex",
	[166] = "cdata.__eq", [167] = "cdata.__len", [168] = "cdata.__lt",
	[169] = "cdata.__le", [170] = "cdata.__concat", [171] = "cdata.__call",
	[172] = "cdata.__add", [173] = "cdata.__sub", [174] = "cdata.__mul",
	[175] = "cdata.__div", [176] = "cdata.__mod", [177] = "cdata.__pow",
	[178] = "cdata.__unm", [179] = "cdata.__tostring", [180] = "cdata.__pairs",
	[181] = "cdata.__ipairs", [182] = "clib.__index", [183] = "clib.__newindex",
	[184] = "clib.__gc", [187] = "ffi.cdef", [188] = "ffi.new", [189] = "ffi.cast",
	[190] = "ffi.typeof", [191] = "ffi.typeinfo", [192] = "ffi.istype",
	[193] = "ffi.sizeof", [194] = "ffi.alignof", [195] = "ffi.offsetof",
	[196] = "ffi.errno", [197] = "ffi.string", [198] = "ffi.copy", [199] = "ffi.fill",
	[200] = "ffi.abi", [201] = "ffi.metatype", [202] = "ffi.gc", [203] = "ffi.load",
	[220] = "string.buffer.new", [221] = "string.buffer.encode",
	[222] = "string.buffer.decode",
};

/* LuaJIT v2.1 @43ebb949 (2022-03-20), GC64 and FR2: Debian 12's build. */
static const struct luajit_layout debian12 = {
	.name = "LuaJIT 2.1.0-beta3 (git 2022-03-20, GC64) of Debian 12",
	.cframe_size = 80,
	.cframe_nres = 0x08,
	.cframe_l = 0x10,
	.cframe_prev = 0x20,
	.cframe_rbp = 0x40,
	.cframe_ret = 0x48,
	.cframe_rawmask = 3,		/* CFRAME_RESUME, CFRAME_UNWIND_FF */
	.gct = 0x09,
	.gct_thread = 6,
	.gct_trace = 9,
	.gcvmask = (1ULL << 47) - 1,
	.l_base = 0x20,
	.l_stack = 0x38,
	.l_cframe = 0x50,
	.g2disp = 0xf80,
	.g_vmstate = 0xb8,
	.g_cur_l = 0x170,
	.g_jit_base = 0x178,
	.g_j_trace = 0x458,
	.g_j_sizetrace = 0x464,
	.frame_typep = 7,
	.frame_pcmask = 3,
	.frame_c = 1,
	.frame_cont = 2,
	.frame_varg = 3,
	.frame_cp = 5,
	.frame_contv = -24,		/* base - 4 */
	.cont_ffi_callback = 1,
	.stack_max_bytes = 1U << 20,	/* LJ_STACK_MAX slots, and then some */
	.fn_ffid = 0x0a,
	.fn_pc = 0x20,
	.ff_lua = 0,
	.ff_c = 1,
	.proto_size = 0x68,
	.pt_sizebc = 0x0c,
	.pt_chunkname = 0x40,
	.pt_firstline = 0x48,
	.pt_numline = 0x4c,
	.pt_lineinfo = 0x50,
	.str_len = 0x14,
	.str_data = 0x18,
	.tr_startpt = 0x40,
	.tr_startpc = 0x48,
	.tr_szmcode = 0x54,
	.tr_mcode = 0x58,
	.tr_traceno = 0x68,
	.tr_link = 0x6a,
	.tr_root = 0x6c,
	.tr_nextside = 0x70,
	.ffid_names = debian12_ffid_names,
	.nffid = sizeof(debian12_ffid_names) / sizeof(debian12_ffid_names[0]),
};

/* The builds this file knows, by build-id. */
static const struct luajit_build {
	const char *build_id;
	const struct luajit_layout *layout;
} luajit_builds[] = {
	/* luajit and libluajit-5.1-2 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1 */
	{ "79b0b8114f05a2726860c3141195279ceb0f6e29", &debian12 },	/* /usr/bin/luajit */
	{ "2e18b5eadde600273e47ba2f83a1df8b6a5b2540", &debian12 },	/* libluajit-5.1.so.2 */
};

/* Every LuaJIT exports its C API, luaJIT_setmode among it. */
#define LUAJIT_API_SYMBOL "luaJIT_setmode"
/* The interpreter is one FDE with this one row over more than this. */
#define LJ_MIN_VM_BYTES 10000

static const struct luajit_layout *luajit_layout_of(const char *build_id)
{
	size_t i;

	for (i = 0; i < sizeof(luajit_builds) / sizeof(luajit_builds[0]); i++)
		if (!strcmp(luajit_builds[i].build_id, build_id))
			return luajit_builds[i].layout;
	return NULL;
}

/* The interpreter's code in @m: its unique unwind row. 0 or -1. */
static int luajit_vm_range(const struct vmstack_map *m, const struct luajit_layout *lj,
			   uint64_t *start, uint64_t *end)
{
	struct vmstack_symtab *tab = m->symtab;
	const struct vmstack_cfi_table *cfi = vmstack_symtab_cfi(tab);
	uint64_t lo;
	size_t i;

	if (!cfi || vmstack_symtab_vaddr(tab, m->offset, &lo))
		return -1;
	for (i = 0; i + 1 < cfi->n; i++) {
		const struct vmstack_cfi_row *r = &cfi->rows[i];

		if (r->rule.cfa == VMSTACK_UW_CFA_RSP &&
		    r->rule.cfa_off == (int32_t)lj->cframe_size &&
		    cfi->rows[i + 1].vaddr - r->vaddr > LJ_MIN_VM_BYTES &&
		    r->vaddr >= lo && cfi->rows[i + 1].vaddr <= lo + (m->end - m->start)) {
			*start = m->start + (r->vaddr - lo);
			*end = m->start + (cfi->rows[i + 1].vaddr - lo);
			return 0;
		}
	}
	return -1;
}

/* The descriptor of build @lj's interpreter at [start, end). */
static void luajit_desc(const struct luajit_layout *lj, uint64_t start, uint64_t end,
			struct vmstack_vm_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->code_start = start;
	d->code_end = end;
	/* In the interpreter rsp is the cframe; the lua_State in SAVE_L. */
	d->state_from = VMSTACK_VM_STATE_AR;
	d->ar_off = 0;
	/* lj_vm_floor/ceil/mod...: called without a frame of their own. */
	d->ar_leaf_off = 8;
	d->state_off = lj->cframe_l;
	d->check_off = lj->gct;
	d->check_val = lj->gct_thread;
	d->top_reg = VMSTACK_VM_REG_RDX;	/* BASE */
	d->pc_reg = VMSTACK_VM_REG_RBX;		/* PC */
	d->top_off = lj->l_base;		/* current when C is called */
	d->top_adj = -8;			/* the link slot, base - 1 */
	d->stack_off = lj->l_stack;
	d->stack_max = lj->stack_max_bytes;
	d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d->link_off = 0;
	d->type_mask = lj->frame_typep;
	d->pc_mask = lj->frame_pcmask;		/* FRAME_LUA / FRAME_LUAP */
	d->pc_val = 0;
	/* x86-64 and LuaJIT's bytecode: the CALL before the return PC, its A. */
	d->insn_off = -4;
	d->insn_shift = 8;
	d->insn_bits = 8;
	d->extra = 2;				/* function and link slots */
	d->slot = 8;
	d->bottom_types = 1U << lj->frame_c | 1U << lj->frame_cp;
	d->hide_types = 1U << lj->frame_varg;	/* its function shows below it */
	d->func_off = -8;			/* base - 2 */
	d->func_mask = lj->gcvmask;
	d->kind_off = lj->fn_ffid;
	d->kind_script = lj->ff_lua;
	d->kind_native = lj->ff_c;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	d->ident_off = lj->fn_pc;		/* the first bytecode... */
	d->ident_adj = -(int32_t)lj->proto_size;	/* ...follows the GCproto */
	d->caller_bp_off = lj->cframe_rbp;
	d->caller_ra_off = lj->cframe_ret;
	d->caller_sp_off = (int32_t)lj->cframe_size;
	d->flags = VMSTACK_VM_F_CONT_BOTTOM | VMSTACK_VM_F_JIT | VMSTACK_VM_F_AR_EMPTY |
		   VMSTACK_VM_F_AR_CHAIN | VMSTACK_VM_F_JIT_NEAR;
	/* SAVE_NRES < 0: a cframe of lj_vm_cpcall(L, NULL, ...), no Lua frame. */
	d->ar_empty_off = lj->cframe_nres;
	/* An FFI callback's frame: a continuation whose continuation is 1. */
	d->cont_type = lj->frame_cont;
	d->cont_off = lj->frame_contv;
	d->cont_val = lj->cont_ffi_callback;
	/*
	 * Traces: r14 stays DISPATCH in trace code; G->vmstate is the
	 * running trace's number, J->trace[] its GCtrace.
	 */
	d->jit_reg = VMSTACK_VM_REG_R14;
	d->jit_anchor_adj = -lj->g2disp;
	d->jit_id_off = lj->g_vmstate;
	d->jit_table_off = lj->g_j_trace;
	d->jit_count_off = lj->g_j_sizetrace;
	d->jit_code_off = lj->tr_mcode;
	d->jit_size_off = lj->tr_szmcode;
	d->jit_state_off = lj->g_cur_l;
	d->jit_top_off = lj->g_jit_base;	/* BASE of the trace */
	d->state_ar_off = lj->l_cframe;
	d->ar_mask = lj->cframe_rawmask;
	/*
	 * lj_vm_ffi_callback's cframe still holds the lua_State of the last
	 * callback until lj_ccallback_enter links it (SAVE_CFRAME), and again
	 * after lj_ccallback_leave unlinks it.
	 */
	d->ar_prev_off = lj->cframe_prev;
	d->ar_chain_max = VMSTACK_VM_AR_CHAIN_MAX;
	/*
	 * A trace stores its number in G->vmstate in its first instructions:
	 * until then vmstate names the trace that linked to it (GCtrace.link)
	 * or whose exit was patched to jump to it (a side trace: on its
	 * root's nextside chain).
	 */
	d->jit_link_off = lj->tr_link;
	d->jit_root_off = lj->tr_root;
	d->jit_side_off = lj->tr_nextside;
	d->jit_near_max = 16;
}

static enum vmstack_detect luajit_detect(const struct vmstack_map *m,
					 struct vmstack_vm_found *f, char *why,
					 size_t len)
{
	struct vmstack_symtab *tab = m->symtab;
	const struct luajit_layout *lj;
	char build_id[128];
	uint64_t start, end;
	GElf_Sym sym;

	if (!tab || !tab->elf || vmstack_elf_symbol(tab->elf, LUAJIT_API_SYMBOL, &sym))
		return VMSTACK_DETECT_NO;
	if (vmstack_elf_build_id(tab->elf, build_id, sizeof(build_id)))
		snprintf(build_id, sizeof(build_id), "none");
	lj = luajit_layout_of(build_id);
	if (!lj) {
		snprintf(why, len, "a LuaJIT build vmstack does not know (build-id %s)",
			 build_id);
		return VMSTACK_DETECT_UNKNOWN;
	}
	/* Another mapping of the file may hold the code. */
	if (luajit_vm_range(m, lj, &start, &end))
		return VMSTACK_DETECT_NO;
	luajit_desc(lj, start, end, &f->desc);
	f->build = lj;
	f->build_name = lj->name;
	return VMSTACK_DETECT_YES;
}

/* The source line of bytecode index @pos of @proto, or -1. */
static int luajit_line(const struct luajit_layout *lj, int pid, uint64_t proto,
		       uint64_t pos)
{
	uint32_t sizebc;
	int32_t first, numline;
	uint64_t lineinfo;
	uint32_t v = 0;
	int w;

	if (read_target(pid, proto + lj->pt_sizebc, &sizebc, 4) ||
	    read_target(pid, proto + lj->pt_firstline, &first, 4) ||
	    read_target(pid, proto + lj->pt_numline, &numline, 4) ||
	    read_target(pid, proto + lj->pt_lineinfo, &lineinfo, 8) || !lineinfo ||
	    pos > sizebc)
		return -1;
	if (pos == sizebc)
		return first + numline;
	if (pos == 0)
		return first;
	/* One entry per instruction after the header, of 1, 2 or 4 bytes. */
	w = numline < 256 ? 1 : numline < 65536 ? 2 : 4;
	if (read_target(pid, lineinfo + (pos - 1) * w, &v, w))
		return -1;
	return first + (int)v;
}

/* "CHUNK:LINE" of @proto; LINE is the function's first line if @line < 0. */
static int luajit_proto_name(const struct luajit_layout *lj, int pid, uint64_t proto,
			     int line, char *buf, size_t len)
{
	uint64_t chunk;
	uint32_t clen;
	int32_t first;
	char name[200];

	if (read_target(pid, proto + lj->pt_chunkname, &chunk, 8) ||
	    read_target(pid, proto + lj->pt_firstline, &first, 4) ||
	    read_target(pid, chunk + lj->str_len, &clen, 4))
		return -1;
	if (clen >= sizeof(name))
		clen = sizeof(name) - 1;
	if (read_target(pid, chunk + lj->str_data, name, clen))
		return -1;
	name[clen] = 0;
	lua_chunk_line(buf, len, name, line < 0 ? first : line);
	return 0;
}

/* A trace: "TRACE_N chunk:line" where it starts, as LuaJIT's perf map has it. */
static int luajit_trace_name(const struct luajit_layout *lj, int pid, uint64_t trace,
			     char *buf, size_t len)
{
	uint64_t proto, startpc, bc;
	uint16_t no;
	uint8_t gct;
	char name[220];
	int line;

	if (read_target(pid, trace + lj->gct, &gct, 1) || gct != lj->gct_trace ||
	    read_target(pid, trace + lj->tr_traceno, &no, 2) ||
	    read_target(pid, trace + lj->tr_startpt, &proto, 8) ||
	    read_target(pid, trace + lj->tr_startpc, &startpc, 8))
		return -1;
	/* The line of the trace's first bytecode, else its function's. */
	bc = proto + lj->proto_size;
	line = startpc > bc ? luajit_line(lj, pid, proto, (startpc - bc) / 4) : -1;
	if (luajit_proto_name(lj, pid, proto, line, name, sizeof(name)))
		return -1;
	snprintf(buf, len, "TRACE_%u %s", no, name);
	return 0;
}

static int luajit_name(const void *build, int pid, const struct vmstack_frame *f,
		       char *buf, size_t len)
{
	const struct luajit_layout *lj = build;
	uint8_t ffid;

	switch (f->kind) {
	case VMSTACK_FRAME_SCRIPT:
		return luajit_proto_name(lj, pid, f->value, -1, buf, len);
	case VMSTACK_FRAME_JIT:
		return luajit_trace_name(lj, pid, f->value, buf, len);
	case VMSTACK_FRAME_BUILTIN:
		if (read_target(pid, f->value + lj->fn_ffid, &ffid, 1))
			return -1;
		if (ffid < lj->nffid && lj->ffid_names[ffid])
			snprintf(buf, len, "%s", lj->ffid_names[ffid]);
		else
			snprintf(buf, len, "[builtin %u]", ffid);
		return 0;
	default:
		return -1;
	}
}

const char *vmstack_luajit_ffid_name(const void *build, unsigned int ffid)
{
	const struct luajit_layout *lj = build;

	return ffid < lj->nffid ? lj->ffid_names[ffid] : NULL;
}

const struct vmstack_runtime vmstack_rt_luajit = {
	.name = "luajit",
	.label = "LuaJIT",
	.help = "LuaJIT 2.1 in any mapped file (executable or library) of a known build",
	.detect = luajit_detect,
	.namer = luajit_name,
};
