/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LuaJIT 2.1 on x86-64, in three files: luajit.c (detection, the
 * descriptor, naming), luajit_builds.c (the builds vmstack knows by
 * build-id, and the two frame conventions), luajit_dwarf.c (a build
 * described by its own DWARF). A build's facts are a struct luajit_layout.
 *
 * Names of fields and constants are LuaJIT's own (src/lj_obj.h,
 * lj_frame.h, lj_jit.h, lj_dispatch.h, vm_x64.dasc, vm_x86.dasc).
 */
#ifndef VMSTACK_VM_LUAJIT_H
#define VMSTACK_VM_LUAJIT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How a build keeps its frames on x86-64: one of two conventions, fixed
 * by the interpreter's .dasc and lj_frame.h, the same in every build of
 * that kind.
 */
struct luajit_frames {
	/*
	 * GC64 (64-bit references; FR2 frames of two slots; vm_x64.dasc),
	 * or not (32-bit references, GC memory in the low 2 GiB; frames of
	 * one slot, function and link in its halves; vm_x86.dasc as x64).
	 */
	bool gc64;
	/* The interpreter's C frame (SAVE_* in the .dasc), from its rsp. */
	uint32_t cframe_size;		/* its FDE: CFA = rsp + this */
	int32_t cframe_nres;		/* SAVE_NRES: < 0, a cframe without Lua frame */
	int32_t cframe_l;		/* SAVE_L: the lua_State (32 bits without GC64) */
	int32_t cframe_prev;		/* SAVE_CFRAME: the previous cframe */
	int32_t cframe_rbp, cframe_ret;	/* the C caller's rbp, return address */
	uint64_t cframe_rawmask;	/* flag bits of a cframe pointer: ~CFRAME_RAWMASK */
	uint8_t gct_thread, gct_trace;	/* ~LJ_TTHREAD, ~LJ_TTRACE */
	uint8_t gct_func;		/* ~LJ_TFUNC */
	uint64_t gcvmask;		/* the pointer in a function slot */
	/* Lua frames (lj_frame.h), from the slot below the frame's base. */
	int32_t frame_func, frame_link;	/* the function, the link (type bits or PC) */
	uint8_t frame_extra;		/* slots of a frame below its base: 1 + LJ_FR2 */
	uint32_t frame_typep;		/* FRAME_TYPEP: link type bits */
	uint32_t frame_pcmask;		/* link & this == 0: a return PC */
	uint8_t frame_c, frame_cont, frame_varg, frame_cp;
	int32_t frame_contv;		/* a continuation frame's continuation */
	int32_t frame_contpc;		/* and the PC its caller is at (frame_contpc) */
	uint64_t cont_ffi_callback;	/* LJ_CONT_FFI_CALLBACK */
	uint32_t stack_max_bytes;	/* a bound on a Lua stack's size */
	uint8_t ff_lua, ff_c;		/* GCfunc.ffid of Lua and C functions */
	/*
	 * GC64: where vm_exit_handler, calling lj_trace_exit, saved the
	 * trace's r14 (DISPATCH), from its rsp (ExitState.gpr[14]). 0:
	 * without GC64, whose traces keep no register on G.
	 */
	int32_t exit_dispatch;
};

/* One build: its frame convention and where its structures keep things. */
struct luajit_layout {
	const char *name;
	const struct luajit_frames *fr;
	/* GCHeader.gct: ~LJ_Txxx */
	int32_t gct;
	/* lua_State */
	int32_t l_base, l_top, l_stack, l_cframe, l_glref;
	/*
	 * global_State G. GC64: DISPATCH (r14, in the interpreter and in
	 * compiled code) = G + g2disp. Without GC64 compiled code keeps no
	 * register on G: it is reached through a variable of the program's
	 * that holds the main lua_State (anchor), G = L + l2g.
	 */
	int32_t g2disp;
	const char *anchor;
	int32_t l2g;
	int32_t g_vmstate, g_cur_l, g_jit_base, g_mainthref;
	int32_t vmst_exit;			/* G->vmstate in a trace exit: ~LJ_VMST_EXIT */
	int32_t vmst_gc;			/* and in a GC step: ~LJ_VMST_GC */
	int32_t vmst_asm;			/* ~LJ_VMST_ASM: ~EXIT to it, jit.p's "JIT compiler" */
	int32_t g_j_trace, g_j_sizetrace;	/* jit_State's trace[], sizetrace, from G */
	int32_t g_j_mcarea;			/* jit_State's mcarea: the newest code area */
	/* GCfunc */
	int32_t fn_ffid, fn_pc;
	/* GCproto: the bytecode follows it */
	uint32_t proto_size;
	int32_t pt_sizebc, pt_chunkname, pt_firstline, pt_numline, pt_lineinfo;
	/* Call-site names: constants (kgc below k), upvalue and variable names. */
	int32_t pt_k, pt_uvinfo, pt_varinfo;
	/* GCstr: the characters follow it */
	int32_t str_len, str_data;
	/* GCtrace */
	int32_t tr_startpt, tr_startpc, tr_szmcode, tr_mcode, tr_traceno;
	int32_t tr_link, tr_root, tr_nextside;	/* TraceNo1 (u16) each */
	/* Builtin ("fast") functions by ffid: a table made when LuaJIT is built. */
	const char *const *ffid_names;
	size_t nffid;
};

/* The two frame conventions of x86-64, everything but structure offsets. */
extern const struct luajit_frames luajit_gc64_frames, luajit_x64_frames;
/* The build with this build-id, or NULL. */
const struct luajit_layout *luajit_known_build(const char *build_id);
/*
 * Build @build_id described by the DWARF in @elf (cached by build-id), or
 * NULL with the reason in @why.
 */
const struct luajit_layout *luajit_dwarf_build(Elf *elf, const char *build_id,
					       char *why, size_t len);

/*
 * The prototype script word value @value names (its tag, the first line's
 * low bits, read when sampled: desc3's F_IDENT_TAG), or 0 if the one at
 * its address now is another (the sampled one freed) or does not read.
 */
uint64_t vmstack_luajit_tagged_proto(const void *build, int pid, uint64_t value);

/* The name of builtin @ffid in build @build (vmstack_vm_found.build), or NULL. */
const char *vmstack_luajit_ffid_name(const void *build, unsigned int ffid);

#endif
