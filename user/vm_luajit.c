// SPDX-License-Identifier: GPL-2.0
/*
 * Offsets are those of LuaJIT 2.1 built GC64 (Debian's 2.1.0~beta3+git2022
 * 0320), checked against the installed packages (see the project's notes
 * on VM internals); another build may differ, so detection also requires
 * the interpreter's distinctive unwind rule.
 */
#include <string.h>

#include "symbols.h"
#include "util.h"
#include "vm_luajit.h"

/*
 * Builtin ("fast") functions by ffid, a table made when LuaJIT is built:
 * this is Debian's 2.1.0~beta3+git20220320, as jit.util.funcinfo() reports
 * it (tests/workloads/lua/ffid.lua; the unit test compares the two).
 * Methods: "file:read"; metamethods of FFI cdata and C library namespaces:
 * "cdata.__call", "clib.__index".
 */
static const char *const luajit_ffid_names[] = {
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

/* The interpreter: one .eh_frame row, CFA = rsp + 80, over > 10000 bytes. */
#define LJ_CFRAME_SIZE		80
#define LJ_MIN_VM_BYTES		10000

static int luajit_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libluajit-5.1.so", 16) || !strncmp(base, "luajit", 6);
}

int vmstack_luajit_describe(const struct vmstack_map *m,
			    struct vmstack_vm_desc *d)
{
	struct vmstack_symtab *tab = m->symtab;
	const struct vmstack_cfi_table *cfi;
	uint64_t lo;
	size_t i;

	if (!tab || !luajit_file(m->path) || !(cfi = vmstack_symtab_cfi(tab)) ||
	    vmstack_symtab_vaddr(tab, m->offset, &lo))
		return -1;
	for (i = 0; i + 1 < cfi->n; i++) {
		const struct vmstack_cfi_row *r = &cfi->rows[i];

		if (r->rule.cfa == VMSTACK_UW_CFA_RSP &&
		    r->rule.cfa_off == LJ_CFRAME_SIZE &&
		    cfi->rows[i + 1].vaddr - r->vaddr > LJ_MIN_VM_BYTES &&
		    r->vaddr >= lo && cfi->rows[i + 1].vaddr <= lo + (m->end - m->start))
			break;
	}
	if (i + 1 >= cfi->n)
		return -1;
	memset(d, 0, sizeof(*d));
	d->code_start = m->start + (cfi->rows[i].vaddr - lo);
	d->code_end = m->start + (cfi->rows[i + 1].vaddr - lo);
	/* In the interpreter rsp is the C frame (cframe); lua_State at +0x10. */
	d->state_from = VMSTACK_VM_STATE_AR;
	d->ar_off = 0;
	d->ar_leaf_off = 8;		/* lj_vm_floor/ceil/mod...: called, no frame */
	d->state_off = 0x10;
	d->check_off = 0x09;		/* gct of a lua_State */
	d->check_val = 6;
	d->top_reg = VMSTACK_VM_REG_RDX;	/* BASE */
	d->pc_reg = VMSTACK_VM_REG_RBX;		/* PC */
	d->top_off = 0x20;		/* L->base, current when C is called */
	d->top_adj = -8;		/* the frame link slot, base - 1 */
	d->stack_off = 0x38;		/* L->stack */
	d->stack_max = 1U << 20;	/* LJ_STACK_MAX slots, and then some */
	d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d->link_off = 0;
	d->type_mask = 7;
	d->pc_mask = 3;			/* FRAME_LUA / FRAME_LUAP: a return PC */
	d->pc_val = 0;
	d->insn_off = -4;		/* the CALL before the return PC */
	d->insn_shift = 8;		/* its A operand */
	d->insn_bits = 8;
	d->extra = 2;			/* function and link slots */
	d->slot = 8;
	d->bottom_types = 1U << 1 | 1U << 5;	/* FRAME_C, FRAME_CP */
	d->hide_types = 1U << 3;	/* FRAME_VARG: the function shows below it */
	d->func_off = -8;		/* base - 2 */
	d->func_mask = (1ULL << 47) - 1;
	d->kind_off = 0x0a;		/* ffid */
	d->kind_script = 0;		/* FF_LUA */
	d->kind_native = 1;		/* FF_C: a C function */
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	d->ident_off = 0x20;		/* fn->pc: the first bytecode */
	d->ident_adj = -0x68;		/* ... follows the GCproto */
	d->caller_bp_off = 0x40;	/* saved by the VM's entry */
	d->caller_ra_off = 0x48;
	d->caller_sp_off = 0x50;
	/* An FFI callback's frame: a continuation frame whose continuation is 1. */
	d->flags = VMSTACK_VM_F_CONT_BOTTOM | VMSTACK_VM_F_JIT | VMSTACK_VM_F_AR_EMPTY |
		   VMSTACK_VM_F_AR_CHAIN;
	/* SAVE_NRES < 0: a cframe of lj_vm_cpcall(L, NULL, ...), no Lua frame. */
	d->ar_empty_off = 0x08;
	d->cont_type = 2;		/* FRAME_CONT */
	d->cont_off = -24;		/* base - 4: the continuation */
	d->cont_val = 1;		/* LJ_CONT_FFI_CALLBACK */
	/*
	 * Traces: r14 stays DISPATCH = G + 0xf80 in trace code; G->vmstate
	 * is the running trace's number, J->trace[] its GCtrace.
	 */
	d->jit_reg = VMSTACK_VM_REG_R14;
	d->jit_anchor_adj = -0xf80;
	d->jit_id_off = 0xb8;		/* G->vmstate */
	d->jit_table_off = 0x458;	/* J->trace */
	d->jit_count_off = 0x464;	/* J->sizetrace */
	d->jit_code_off = 0x58;		/* GCtrace.mcode */
	d->jit_size_off = 0x54;		/* GCtrace.szmcode */
	d->jit_state_off = 0x170;	/* G->cur_L */
	d->jit_top_off = 0x178;		/* G->jit_base: BASE of the trace */
	d->state_ar_off = 0x50;		/* L->cframe */
	d->ar_mask = 3;			/* CFRAME_RESUME, CFRAME_UNWIND_FF */
	/*
	 * lj_vm_ffi_callback's cframe still holds the lua_State of the last
	 * callback until lj_ccallback_enter links it (SAVE_CFRAME, +0x20),
	 * and again after lj_ccallback_leave unlinks it.
	 */
	d->ar_prev_off = 0x20;
	d->ar_chain_max = VMSTACK_VM_AR_CHAIN_MAX;
	return 0;
}

const char *vmstack_luajit_ffid_name(unsigned int ffid)
{
	return ffid < sizeof(luajit_ffid_names) / sizeof(luajit_ffid_names[0]) ?
	       luajit_ffid_names[ffid] : NULL;
}

/* The source line of bytecode index @pos of @proto, or -1. */
static int luajit_line(int pid, uint64_t proto, uint64_t pos)
{
	uint32_t sizebc;
	int32_t first, numline;
	uint64_t lineinfo;
	uint32_t v = 0;
	int w;

	if (read_target(pid, proto + 0x0c, &sizebc, 4) ||
	    read_target(pid, proto + 0x48, &first, 4) ||
	    read_target(pid, proto + 0x4c, &numline, 4) ||
	    read_target(pid, proto + 0x50, &lineinfo, 8) || !lineinfo || pos > sizebc)
		return -1;
	if (pos == sizebc)
		return first + numline;
	if (pos == 0)
		return first;
	/* lineinfo has one entry per instruction after the header, of 1, 2 or 4 bytes. */
	w = numline < 256 ? 1 : numline < 65536 ? 2 : 4;
	if (read_target(pid, lineinfo + (pos - 1) * w, &v, w))
		return -1;
	return first + (int)v;
}

/* "CHUNK:LINE" of @proto; LINE is the function's first line if @line < 0. */
static int luajit_proto_name(int pid, uint64_t proto, int line, char *buf, size_t len)
{
	uint64_t chunk;
	uint32_t clen;
	int32_t first;
	char name[200];

	if (read_target(pid, proto + 0x40, &chunk, 8) || read_target(pid, proto + 0x48, &first, 4) ||
	    read_target(pid, chunk + 0x14, &clen, 4))
		return -1;
	if (clen >= sizeof(name))
		clen = sizeof(name) - 1;
	if (read_target(pid, chunk + 0x18, name, clen))
		return -1;
	name[clen] = 0;
	lua_chunk_line(buf, len, name, line < 0 ? first : line);
	return 0;
}

/* A trace: "TRACE_N chunk:line" where it starts, as LuaJIT's perf map has it. */
static int luajit_trace_name(int pid, uint64_t trace, char *buf, size_t len)
{
	uint64_t proto, startpc;
	uint16_t no;
	uint8_t gct;
	char name[220];
	int line;

	if (read_target(pid, trace + 0x09, &gct, 1) || gct != 9 ||	/* ~LJ_TTRACE */
	    read_target(pid, trace + 0x68, &no, 2) ||
	    read_target(pid, trace + 0x40, &proto, 8) ||
	    read_target(pid, trace + 0x48, &startpc, 8))
		return -1;
	/* The line of the trace's first bytecode, else its function's. */
	line = startpc > proto + 0x68 ? luajit_line(pid, proto, (startpc - proto - 0x68) / 4) : -1;
	if (luajit_proto_name(pid, proto, line, name, sizeof(name)))
		return -1;
	snprintf(buf, len, "TRACE_%u %s", no, name);
	return 0;
}

int vmstack_luajit_name(int pid, uint64_t word, char *buf, size_t len)
{
	uint64_t v = vmstack_vmw_value(word);
	const char *ff;
	uint8_t ffid;

	switch (vmstack_vmw_kind(word)) {
	case VMSTACK_VMW_SCRIPT:
		return luajit_proto_name(pid, v, -1, buf, len);
	case VMSTACK_VMW_JIT:
		return luajit_trace_name(pid, v, buf, len);
	case VMSTACK_VMW_BUILTIN:
		if (read_target(pid, v + 0x0a, &ffid, 1))	/* GCfuncC.ffid */
			return -1;
		ff = vmstack_luajit_ffid_name(ffid);
		if (ff)
			snprintf(buf, len, "%s", ff);
		else
			snprintf(buf, len, "[builtin %u]", ffid);
		return 0;
	}
	return -1;
}
