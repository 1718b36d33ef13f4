// SPDX-License-Identifier: GPL-2.0
/*
 * The LuaJIT builds vmstack knows without DWARF, by build-id, and the two
 * x86-64 frame conventions every build follows one of. Each build's values
 * were read in the source at its revision and checked on the installed
 * files (disassembly of lua_gettop, luaJIT_setmode and the interpreter's
 * DISPATCH setup; the interpreter's FDE; a live state's fields); luajit.c
 * checks the code of every file before it describes it.
 */
#include <string.h>

#include "vm/luajit/luajit.h"

/*
 * GC64 (vm_x64.dasc and lj_frame.h at LuaJIT v2.1 43ebb949, the same in
 * OpenResty's v2.1-20230119): from the interpreter's rsp SAVE_NRES 8,
 * SAVE_L 0x10, SAVE_CFRAME 0x20, the saved rbp 0x40, the return address
 * 0x48, CFRAME_SIZE 80. FR2 frames: the link at base - 1, the function at
 * base - 2 (a tagged slot), a continuation at base - 4 (frame_contv).
 */
const struct luajit_frames luajit_gc64_frames = {
	.gc64 = true,
	.cframe_size = 80,
	.cframe_nres = 0x08,
	.cframe_l = 0x10,
	.cframe_prev = 0x20,
	.cframe_rbp = 0x40,
	.cframe_ret = 0x48,
	.cframe_rawmask = 3,		/* CFRAME_RESUME, CFRAME_UNWIND_FF */
	.gct_thread = 6,
	.gct_trace = 9,
	.gct_func = 8,
	.gcvmask = (1ULL << 47) - 1,	/* LJ_GCVMASK */
	.frame_func = -8,
	.frame_link = 0,
	.frame_extra = 2,
	.frame_typep = 7,
	.frame_pcmask = 3,
	.frame_c = 1,
	.frame_cont = 2,
	.frame_varg = 3,
	.frame_cp = 5,
	.frame_contv = -24,
	.frame_contpc = -16,		/* the slot above the continuation */
	.cont_ffi_callback = 1,
	.stack_max_bytes = 1U << 20,	/* LJ_STACK_MAX slots, and then some */
	.ff_lua = 0,
	.ff_c = 1,
	/*
	 * vm_exit_handler pushes the 16 GPRs (r14 as gpr[14]) below the
	 * exit stub's slots, then makes room for 16 FPRs: ExitState
	 * (lj_target_x86.h: fpr[16], gpr[16]) starts at rsp.
	 */
	.exit_dispatch = 16 * 8 + 14 * 8,
};

/*
 * Without GC64 (vm_x86.dasc assembled for x64, and lj_frame.h, at
 * Tarantool's LuaJIT 377198b8): SAVE_NRES 16, SAVE_L 24 (a 32-bit slot),
 * SAVE_CFRAME 32, the saved rbp 64, the return address 72, CFRAME_SIZE
 * 80. A frame is the slot below its base: the function (a GCRef) in its
 * low half, the link in its high half; a continuation in the low half of
 * base - 2.
 */
const struct luajit_frames luajit_x64_frames = {
	.gc64 = false,
	.cframe_size = 80,
	.cframe_nres = 16,
	.cframe_l = 24,
	.cframe_prev = 32,
	.cframe_rbp = 64,
	.cframe_ret = 72,
	.cframe_rawmask = 3,
	.gct_thread = 6,
	.gct_trace = 9,
	.gct_func = 8,
	.gcvmask = 0xffffffffULL,
	.frame_func = 0,
	.frame_link = 4,
	.frame_extra = 1,
	.frame_typep = 7,
	.frame_pcmask = 3,
	.frame_c = 1,
	.frame_cont = 2,
	.frame_varg = 3,
	.frame_cp = 5,
	.frame_contv = -8,
	.frame_contpc = -4,		/* the same slot's upper half */
	.cont_ffi_callback = 1,
	.stack_max_bytes = 1U << 20,
	.ff_lua = 0,
	.ff_c = 1,
};

/*
 * Builtin names by ffid: the order of the LJLIB_ASM/LJLIB_CF entries in
 * the lib_*.c files buildvm reads (its generated vmdef.lua has the same),
 * named as tests/workloads/lua/ffid.lua finds them through
 * jit.util.funcinfo() (the unit tests compare). Methods "file:read";
 * metamethods of FFI cdata and C library namespaces "cdata.__call",
 * "clib.__index"; iterators "ipairs_aux".
 */
static const char *const debian12_ffid_names[] = {
	[2] = "assert", [3] = "type", [4] = "next", [5] = "pairs", [6] = "ipairs_aux",
	[7] = "ipairs", [8] = "getmetatable", [9] = "setmetatable", [10] = "getfenv",
	[11] = "setfenv", [12] = "rawget", [13] = "rawset", [14] = "rawequal",
	[15] = "unpack", [16] = "select", [17] = "tonumber", [18] = "tostring",
	[19] = "error", [20] = "pcall", [21] = "xpcall", [22] = "loadfile", [23] = "load",
	[24] = "loadstring", [25] = "dofile", [26] = "gcinfo", [27] = "collectgarbage",
	[28] = "newproxy", [29] = "print", [30] = "coroutine.status",
	[31] = "coroutine.running", [32] = "coroutine.isyieldable", [33] = "coroutine.create",
	[34] = "coroutine.yield", [35] = "coroutine.resume", [36] = "coroutine.wrap_aux",
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
	[86] = "string.gmatch_aux", [87] = "string.gmatch", [88] = "string.gsub",
	[89] = "string.format", [90] = "table.maxn", [91] = "table.insert",
	[92] = "table.concat", [93] = "table.sort", [94] = "table.new", [95] = "table.clear",
	[96] = "file:close", [97] = "file:read", [98] = "file:write", [99] = "file:flush",
	[100] = "file:seek", [101] = "file:setvbuf", [102] = "file:lines",
	[103] = "file:__gc", [104] = "file:__tostring", [105] = "io.open", [106] = "io.popen",
	[107] = "io.tmpfile", [108] = "io.close", [109] = "io.read", [110] = "io.write",
	[111] = "io.flush", [112] = "io.input", [113] = "io.output", [114] = "io.lines",
	[115] = "io.type", [116] = "os.execute", [117] = "os.remove", [118] = "os.rename",
	[119] = "os.tmpname", [120] = "os.getenv", [121] = "os.exit", [122] = "os.clock",
	[123] = "os.date", [124] = "os.time", [125] = "os.difftime", [126] = "os.setlocale",
	[127] = "debug.getregistry", [128] = "debug.getmetatable",
	[129] = "debug.setmetatable", [130] = "debug.getfenv", [131] = "debug.setfenv",
	[132] = "debug.getinfo", [133] = "debug.getlocal", [134] = "debug.setlocal",
	[135] = "debug.getupvalue", [136] = "debug.setupvalue", [137] = "debug.upvalueid",
	[138] = "debug.upvaluejoin", [139] = "debug.sethook", [140] = "debug.gethook",
	[141] = "debug.debug", [142] = "debug.traceback", [143] = "jit.on", [144] = "jit.off",
	[145] = "jit.flush", [146] = "jit.status", [147] = "jit.security",
	[148] = "jit.attach", [149] = "jit.util.funcinfo", [150] = "jit.util.funcbc",
	[151] = "jit.util.funck", [152] = "jit.util.funcuvname", [153] = "jit.util.traceinfo",
	[154] = "jit.util.traceir", [155] = "jit.util.tracek", [156] = "jit.util.tracesnap",
	[157] = "jit.util.tracemc", [158] = "jit.util.traceexitstub",
	[159] = "jit.util.ircalladdr", [160] = "jit.opt.start", [161] = "jit.profile.start",
	[162] = "jit.profile.stop", [163] = "jit.profile.dumpstack", [164] = "cdata.__index",
	[165] = "cdata.__newindex", [166] = "cdata.__eq", [167] = "cdata.__len",
	[168] = "cdata.__lt", [169] = "cdata.__le", [170] = "cdata.__concat",
	[171] = "cdata.__call", [172] = "cdata.__add", [173] = "cdata.__sub",
	[174] = "cdata.__mul", [175] = "cdata.__div", [176] = "cdata.__mod",
	[177] = "cdata.__pow", [178] = "cdata.__unm", [179] = "cdata.__tostring",
	[180] = "cdata.__pairs", [181] = "cdata.__ipairs", [182] = "clib.__index",
	[183] = "clib.__newindex", [184] = "clib.__gc", [185] = "callback:free",
	[186] = "callback:set", [187] = "ffi.cdef", [188] = "ffi.new", [189] = "ffi.cast",
	[190] = "ffi.typeof", [191] = "ffi.typeinfo", [192] = "ffi.istype",
	[193] = "ffi.sizeof", [194] = "ffi.alignof", [195] = "ffi.offsetof",
	[196] = "ffi.errno", [197] = "ffi.string", [198] = "ffi.copy", [199] = "ffi.fill",
	[200] = "ffi.abi", [201] = "ffi.metatype", [202] = "ffi.gc", [203] = "ffi.load",
	[204] = "buffer:free", [205] = "buffer:reset", [206] = "buffer:skip",
	[207] = "buffer:set", [208] = "buffer:put", [209] = "buffer:putf",
	[210] = "buffer:get", [211] = "buffer:putcdata", [212] = "buffer:reserve",
	[213] = "buffer:commit", [214] = "buffer:ref", [215] = "buffer:encode",
	[216] = "buffer:decode", [217] = "buffer:__gc", [218] = "buffer:tostring",
	[219] = "buffer:__len", [220] = "string.buffer.new", [221] = "string.buffer.encode",
	[222] = "string.buffer.decode",
};

/*
 * OpenResty's branch: 38 thread.exdata and 39 thread.exdata2, 95..98
 * table.clone, isarray, nkeys, isempty, 155 jit.prngstate; everything
 * after each addition moves up.
 */
static const char *const openresty_20230119_ffid_names[] = {
	[2] = "assert", [3] = "type", [4] = "next", [5] = "pairs", [6] = "ipairs_aux",
	[7] = "ipairs", [8] = "getmetatable", [9] = "setmetatable", [10] = "getfenv",
	[11] = "setfenv", [12] = "rawget", [13] = "rawset", [14] = "rawequal",
	[15] = "unpack", [16] = "select", [17] = "tonumber", [18] = "tostring",
	[19] = "error", [20] = "pcall", [21] = "xpcall", [22] = "loadfile", [23] = "load",
	[24] = "loadstring", [25] = "dofile", [26] = "gcinfo", [27] = "collectgarbage",
	[28] = "newproxy", [29] = "print", [30] = "coroutine.status",
	[31] = "coroutine.running", [32] = "coroutine.isyieldable", [33] = "coroutine.create",
	[34] = "coroutine.yield", [35] = "coroutine.resume", [36] = "coroutine.wrap_aux",
	[37] = "coroutine.wrap", [38] = "thread.exdata", [39] = "thread.exdata2",
	[40] = "math.abs", [41] = "math.floor", [42] = "math.ceil", [43] = "math.sqrt",
	[44] = "math.log10", [45] = "math.exp", [46] = "math.sin", [47] = "math.cos",
	[48] = "math.tan", [49] = "math.asin", [50] = "math.acos", [51] = "math.atan",
	[52] = "math.sinh", [53] = "math.cosh", [54] = "math.tanh", [55] = "math.frexp",
	[56] = "math.modf", [57] = "math.log", [58] = "math.atan2", [59] = "math.pow",
	[60] = "math.fmod", [61] = "math.ldexp", [62] = "math.min", [63] = "math.max",
	[64] = "math.random", [65] = "math.randomseed", [66] = "bit.tobit", [67] = "bit.bnot",
	[68] = "bit.bswap", [69] = "bit.lshift", [70] = "bit.rshift", [71] = "bit.arshift",
	[72] = "bit.rol", [73] = "bit.ror", [74] = "bit.band", [75] = "bit.bor",
	[76] = "bit.bxor", [77] = "bit.tohex", [78] = "string.byte", [79] = "string.char",
	[80] = "string.sub", [81] = "string.rep", [82] = "string.reverse",
	[83] = "string.lower", [84] = "string.upper", [85] = "string.dump",
	[86] = "string.find", [87] = "string.match", [88] = "string.gmatch_aux",
	[89] = "string.gmatch", [90] = "string.gsub", [91] = "string.format",
	[92] = "table.maxn", [93] = "table.insert", [94] = "table.concat",
	[95] = "table.clone", [96] = "table.isarray", [97] = "table.nkeys",
	[98] = "table.isempty", [99] = "table.sort", [100] = "table.new",
	[101] = "table.clear", [102] = "file:close", [103] = "file:read",
	[104] = "file:write", [105] = "file:flush", [106] = "file:seek",
	[107] = "file:setvbuf", [108] = "file:lines", [109] = "file:__gc",
	[110] = "file:__tostring", [111] = "io.open", [112] = "io.popen",
	[113] = "io.tmpfile", [114] = "io.close", [115] = "io.read", [116] = "io.write",
	[117] = "io.flush", [118] = "io.input", [119] = "io.output", [120] = "io.lines",
	[121] = "io.type", [122] = "os.execute", [123] = "os.remove", [124] = "os.rename",
	[125] = "os.tmpname", [126] = "os.getenv", [127] = "os.exit", [128] = "os.clock",
	[129] = "os.date", [130] = "os.time", [131] = "os.difftime", [132] = "os.setlocale",
	[133] = "debug.getregistry", [134] = "debug.getmetatable",
	[135] = "debug.setmetatable", [136] = "debug.getfenv", [137] = "debug.setfenv",
	[138] = "debug.getinfo", [139] = "debug.getlocal", [140] = "debug.setlocal",
	[141] = "debug.getupvalue", [142] = "debug.setupvalue", [143] = "debug.upvalueid",
	[144] = "debug.upvaluejoin", [145] = "debug.sethook", [146] = "debug.gethook",
	[147] = "debug.debug", [148] = "debug.traceback", [149] = "jit.on", [150] = "jit.off",
	[151] = "jit.flush", [152] = "jit.status", [153] = "jit.security",
	[154] = "jit.attach", [155] = "jit.prngstate", [156] = "jit.util.funcinfo",
	[157] = "jit.util.funcbc", [158] = "jit.util.funck", [159] = "jit.util.funcuvname",
	[160] = "jit.util.traceinfo", [161] = "jit.util.traceir", [162] = "jit.util.tracek",
	[163] = "jit.util.tracesnap", [164] = "jit.util.tracemc",
	[165] = "jit.util.traceexitstub", [166] = "jit.util.ircalladdr",
	[167] = "jit.opt.start", [168] = "jit.profile.start", [169] = "jit.profile.stop",
	[170] = "jit.profile.dumpstack", [171] = "cdata.__index", [172] = "cdata.__newindex",
	[173] = "cdata.__eq", [174] = "cdata.__len", [175] = "cdata.__lt",
	[176] = "cdata.__le", [177] = "cdata.__concat", [178] = "cdata.__call",
	[179] = "cdata.__add", [180] = "cdata.__sub", [181] = "cdata.__mul",
	[182] = "cdata.__div", [183] = "cdata.__mod", [184] = "cdata.__pow",
	[185] = "cdata.__unm", [186] = "cdata.__tostring", [187] = "cdata.__pairs",
	[188] = "cdata.__ipairs", [189] = "clib.__index", [190] = "clib.__newindex",
	[191] = "clib.__gc", [192] = "callback:free", [193] = "callback:set",
	[194] = "ffi.cdef", [195] = "ffi.new", [196] = "ffi.cast", [197] = "ffi.typeof",
	[198] = "ffi.typeinfo", [199] = "ffi.istype", [200] = "ffi.sizeof",
	[201] = "ffi.alignof", [202] = "ffi.offsetof", [203] = "ffi.errno",
	[204] = "ffi.string", [205] = "ffi.copy", [206] = "ffi.fill", [207] = "ffi.abi",
	[208] = "ffi.metatype", [209] = "ffi.gc", [210] = "ffi.load", [211] = "buffer:free",
	[212] = "buffer:reset", [213] = "buffer:skip", [214] = "buffer:set",
	[215] = "buffer:put", [216] = "buffer:putf", [217] = "buffer:get",
	[218] = "buffer:putcdata", [219] = "buffer:reserve", [220] = "buffer:commit",
	[221] = "buffer:ref", [222] = "buffer:encode", [223] = "buffer:decode",
	[224] = "buffer:__gc", [225] = "buffer:tostring", [226] = "buffer:__len",
	[227] = "string.buffer.new", [228] = "string.buffer.encode",
	[229] = "string.buffer.decode",
};

/*
 * What OpenResty's branch keeps of upstream v2.1 @43ebb949 (GC64): the GC
 * header's type byte, lua_State's fields up to cframe (its additions come
 * after), and GCfunc, GCproto, GCstr and GCtrace whole.
 */
#define LJ21_GC64_OBJECTS \
	.gct = 0x09, \
	.l_base = 0x20, \
	.l_top = 0x28, \
	.l_stack = 0x38, \
	.l_cframe = 0x50, \
	.l_glref = 0x10, \
	.fn_ffid = 0x0a, \
	.fn_pc = 0x20, \
	.proto_size = 0x68, \
	.pt_sizebc = 0x0c, \
	.pt_chunkname = 0x40, \
	.pt_firstline = 0x48, \
	.pt_numline = 0x4c, \
	.pt_lineinfo = 0x50, \
	.pt_k = 0x20, \
	.pt_uvinfo = 0x58, \
	.pt_varinfo = 0x60, \
	.str_len = 0x14, \
	.str_data = 0x18, \
	.tr_startpt = 0x40, \
	.tr_startpc = 0x48, \
	.tr_szmcode = 0x54, \
	.tr_mcode = 0x58, \
	.tr_traceno = 0x68, \
	.tr_link = 0x6a, \
	.tr_root = 0x6c, \
	.tr_nextside = 0x70

#define NAMES(a) .ffid_names = (a), .nffid = sizeof(a) / sizeof((a)[0])

/* LuaJIT v2.1 @43ebb949 (2022-03-20): Debian 12's luajit and libluajit-5.1-2. */
static const struct luajit_layout debian12 = {
	.name = "LuaJIT 2.1.0-beta3 (git 2022-03-20, GC64) of Debian 12",
	.fr = &luajit_gc64_frames,
	LJ21_GC64_OBJECTS,
	.g2disp = 0xf80,
	.g_vmstate = 0xb8,
	.g_cur_l = 0x170,
	.g_jit_base = 0x178,
	.vmst_exit = ~3,	/* lj_obj.h: INTERP, C, GC, EXIT, RECORD, OPT, ASM */
	.vmst_gc = ~2,
	.vmst_asm = ~6,
	.g_j_trace = 0x458,
	.g_j_sizetrace = 0x464,
	.g_j_mcarea = 0xec0,
	NAMES(debian12_ffid_names),
};

/*
 * OpenResty's luajit2 v2.1-20230119 (2cf51864; upstream merged up to
 * a04480e3): Debian 12's libluajit2-5.1-2, what nginx's lua module runs
 * on. It appends exdata and exdata2 to lua_State, saved_jit_base to
 * global_State and a PRNG state to jit_State: DISPATCH sits 0x28 further
 * from G and J's fields 8 further; the rest is upstream's.
 */
static const struct luajit_layout openresty_20230119 = {
	.name = "OpenResty LuaJIT 2.1-20230119 (GC64) of Debian 12",
	.fr = &luajit_gc64_frames,
	LJ21_GC64_OBJECTS,
	.g2disp = 0xfa8,
	.g_vmstate = 0xb8,
	.g_cur_l = 0x170,
	.g_jit_base = 0x178,
	.vmst_exit = ~3,	/* as upstream's */
	.vmst_gc = ~2,
	.vmst_asm = ~6,
	.g_j_trace = 0x460,
	.g_j_sizetrace = 0x46c,
	.g_j_mcarea = 0xec8,
	NAMES(openresty_20230119_ffid_names),
};

static const struct {
	const char *build_id;
	const struct luajit_layout *layout;
} builds[] = {
	/* luajit and libluajit-5.1-2 2.1.0~beta3+git20220320+dfsg-4.1+deb12u1 */
	{ "79b0b8114f05a2726860c3141195279ceb0f6e29", &debian12 },	/* /usr/bin/luajit */
	{ "2e18b5eadde600273e47ba2f83a1df8b6a5b2540", &debian12 },	/* libluajit-5.1.so.2 */
	/* libluajit2-5.1-2 2.1-20230119-1 (libluajit-5.1.so.2 too) */
	{ "0a6563c55d870716908fd332f88bf7cdd9bc6a71", &openresty_20230119 },
};

const struct luajit_layout *luajit_known_build(const char *build_id)
{
	size_t i;

	for (i = 0; i < sizeof(builds) / sizeof(builds[0]); i++)
		if (!strcmp(builds[i].build_id, build_id))
			return builds[i].layout;
	return NULL;
}
