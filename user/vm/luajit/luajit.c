// SPDX-License-Identifier: GPL-2.0
/*
 * LuaJIT 2.1 on x86-64: find its interpreter in any mapped file by what
 * it is (its C API, its interpreter's one unwind row), describe the build
 * (a table by build-id, luajit_builds.c, else its own DWARF,
 * luajit_dwarf.c), check the description against the file's code and
 * the running process, then describe its frames to the module and name
 * them. A build that cannot be described is named and left native-only.
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/lua/lua_name.h"
#include "vm/luajit/luajit.h"
#include "vm/luajit/lj_callname.h"
#include "vm/runtime.h"
#include "file.h"
#include "util.h"

/* Every LuaJIT exports its C API, luaJIT_setmode among it. */
#define LUAJIT_API_SYMBOL "luaJIT_setmode"
/* The interpreter is one FDE with this one row over more than this. */
#define LJ_MIN_VM_BYTES 10000

/* Both conventions' interpreters keep CFRAME_SIZE 80 bytes below the CFA. */
#define LJ_CFRAME_SIZE 80

/*
 * The interpreter's code in @m: its unique unwind row (CFA = rsp + 80 over
 * more than LJ_MIN_VM_BYTES), as addresses in the process and in the
 * file. 0 or -1.
 */
static int luajit_vm_range(const struct vmstack_map *m, uint64_t *start, uint64_t *end,
			   uint64_t *vaddr)
{
	const struct vmstack_cfi_table *cfi = vmstack_file_cfi(m->file);
	uint64_t lo;
	size_t i;

	if (!cfi || vmstack_file_vaddr(m->file, m->offset, &lo))
		return -1;
	for (i = 0; i + 1 < cfi->n; i++) {
		const struct vmstack_cfi_row *r = &cfi->rows[i];

		if (r->rule.cfa == VMSTACK_UW_CFA_RSP &&
		    r->rule.cfa_off == LJ_CFRAME_SIZE &&
		    cfi->rows[i + 1].vaddr - r->vaddr > LJ_MIN_VM_BYTES &&
		    r->vaddr >= lo && cfi->rows[i + 1].vaddr <= lo + (m->end - m->start)) {
			*start = m->start + (r->vaddr - lo);
			*end = m->start + (cfi->rows[i + 1].vaddr - lo);
			*vaddr = r->vaddr;
			return 0;
		}
	}
	return -1;
}

/*
 * Does the file's code agree with layout @lj? lua_gettop reads L->top and
 * L->base ("mov rax, [rdi+top]; sub rax, [rdi+base]"), and the interpreter
 * sets DISPATCH up as G + g2disp ("add r14, g2disp"; r14d without GC64).
 * A layout taken for another build fails here, not in the samples.
 * @vmcode: the interpreter's first @vm_len bytes of code.
 */
static int luajit_code_agrees(Elf *elf, const struct luajit_layout *lj, const uint8_t *vmcode,
			      size_t vm_len, char *why, size_t len)
{
	const uint8_t gettop[8] = { 0x48, 0x8b, 0x47, (uint8_t)lj->l_top,
				    0x48, 0x2b, 0x47, (uint8_t)lj->l_base };
	uint8_t code[8], add[3] = { lj->fr->gc64 ? 0x49 : 0x41, 0x81, 0xc6 };
	uint32_t imm = 0;
	GElf_Sym sym;
	size_t i;

	if (vmstack_elf_symbol(elf, "lua_gettop", &sym) ||
	    vmstack_elf_read(elf, sym.st_value, code, sizeof(code)) ||
	    memcmp(code, gettop, sizeof(code))) {
		snprintf(why, len, "its lua_gettop does not read L->base at 0x%x as %s has it",
			 lj->l_base, lj->name);
		return 0;
	}
	for (i = 0; i + 7 <= vm_len; i++)
		if (!memcmp(vmcode + i, add, sizeof(add))) {
			memcpy(&imm, vmcode + i + 3, 4);
			break;
		}
	if (imm != (uint32_t)lj->g2disp) {
		snprintf(why, len, "its interpreter's DISPATCH is G + 0x%x, not 0x%x as %s has it",
			 imm, lj->g2disp, lj->name);
		return 0;
	}
	return 1;
}

/*
 * Where compiled code returns to the interpreter (lj_vm_exit_interp, as
 * offsets [*from, *to) in the VM's @n bytes of @code) before rsp is the
 * interpreter's cframe again: a trace that links to the interpreter jumps
 * there with rsp 16 below it. vm_x64.dasc: GC64 "lea rcx, [rsp+16]",
 * r13 and r12 from the cframe, "mov rsp, rcx" (the exit handler joins
 * after the lea, with rsp its ExitState); without GC64 "add rsp, 16"
 * (the handler joins after it). Found in Debian's luajit and
 * libluajit-5.1 (stripped), OpenResty's and Tarantool's; one match or
 * none.
 */
static int luajit_exit_entry(bool gc64, const uint8_t *code, size_t n, uint64_t *from,
			     uint64_t *to)
{
	static const uint8_t gc64_code[] = { 0x48, 0x8d, 0x4c, 0x24, 0x10, 0x4c, 0x8b, 0x69,
					     0xf8, 0x4c, 0x8b, 0x21, 0x48, 0x89, 0xcc };
	static const uint8_t x64_code[] = { 0x48, 0x83, 0xc4, 0x10, 0x4c, 0x8b, 0x6c, 0x24,
					    0x08, 0x4c, 0x8b, 0x24, 0x24 };
	const uint8_t *what = gc64 ? gc64_code : x64_code;
	size_t len = gc64 ? sizeof(gc64_code) : sizeof(x64_code);
	const uint8_t *at = memmem(code, n, what, len);

	if (!at || memmem(at + 1, n - (size_t)(at + 1 - code), what, len))
		return -1;
	*from = (uint64_t)(at - code);
	/* GC64: through the mov; else the add alone. */
	*to = *from + (gc64 ? len : 4);
	return 0;
}

/* A 32- or 64-bit reference of the build (GCRef, MRef) in process @pid. */
static int read_ref(const struct luajit_layout *lj, int pid, uint64_t addr, uint64_t *v)
{
	uint32_t r;

	*v = 0;
	if (lj->fr->gc64)
		return read_target(pid, addr, v, 8);
	if (read_target(pid, addr, &r, 4))
		return -1;
	*v = r;
	return 0;
}

/*
 * The running process's main state, through the anchor variable at
 * @anchor, must be one: a thread whose global state is where the layout
 * says and names it its main thread. Not yet set (the program has not
 * started its Lua): nothing to check yet.
 */
static int luajit_process_agrees(const struct luajit_layout *lj, int pid, uint64_t anchor,
				 char *why, size_t len)
{
	uint64_t l = 0, g, main;
	uint8_t gct;

	if (pid <= 0 || read_target(pid, anchor, &l, 8) || !l)
		return 1;
	if (read_target(pid, l + lj->gct, &gct, 1) || gct != lj->fr->gct_thread ||
	    read_ref(lj, pid, l + lj->l_glref, &g) || g != l + lj->l2g ||
	    read_ref(lj, pid, g + lj->g_mainthref, &main) || main != l) {
		snprintf(why, len, "the process's main lua_State (%s) does not fit %s",
			 lj->anchor, lj->name);
		return 0;
	}
	return 1;
}

/* The descriptor of build @lj's interpreter at [start, end). */
static void luajit_desc(const struct luajit_layout *lj, uint64_t start, uint64_t end,
			uint64_t anchor, struct vmstack_vm_desc *d)
{
	const struct luajit_frames *fr = lj->fr;

	memset(d, 0, sizeof(*d));
	d->code_start = start;
	d->code_end = end;
	/* In the interpreter rsp is the cframe; the lua_State in SAVE_L. */
	d->state_from = VMSTACK_VM_STATE_AR;
	d->ar_off = 0;
	/* lj_vm_floor/ceil/mod...: called without a frame of their own. */
	d->ar_leaf_off = 8;
	d->state_off = fr->cframe_l;
	d->check_off = lj->gct;
	d->check_val = fr->gct_thread;
	d->top_reg = VMSTACK_VM_REG_RDX;	/* BASE, in both conventions */
	d->pc_reg = VMSTACK_VM_REG_RBX;		/* PC */
	d->top_off = lj->l_base;		/* current when C is called */
	d->top_adj = -8;			/* the frame's slot, base - 1 */
	d->stack_off = lj->l_stack;
	d->stack_max = fr->stack_max_bytes;
	d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d->link_off = fr->frame_link;
	d->type_mask = fr->frame_typep;
	d->pc_mask = fr->frame_pcmask;		/* FRAME_LUA / FRAME_LUAP */
	d->pc_val = 0;
	/* x86-64 and LuaJIT's bytecode: the CALL before the return PC, its A. */
	d->insn_off = -4;
	d->insn_shift = 8;
	d->insn_bits = 8;
	d->extra = fr->frame_extra;
	d->slot = 8;
	d->bottom_types = 1U << fr->frame_c | 1U << fr->frame_cp;
	d->hide_types = 1U << fr->frame_varg;	/* its function shows below it */
	d->func_off = fr->frame_func;
	d->func_mask = fr->gcvmask;
	d->kind_off = lj->fn_ffid;
	d->kind_script = fr->ff_lua;
	d->kind_native = fr->ff_c;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	d->ident_off = lj->fn_pc;		/* the first bytecode... */
	d->ident_adj = -(int32_t)lj->proto_size;	/* ...follows the GCproto */
	d->caller_bp_off = fr->cframe_rbp;
	d->caller_ra_off = fr->cframe_ret;
	d->caller_sp_off = (int32_t)fr->cframe_size;
	d->flags = VMSTACK_VM_F_CONT_BOTTOM | VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN |
		   VMSTACK_VM_F_FUNC_CHECK | VMSTACK_VM_F_PC_CHECK | VMSTACK_VM_F_BUILTIN_KIND;
	/*
	 * A frame's slot holds its function except while the frame is set
	 * up or torn down: then a result (table, cdata, string...) may sit
	 * there, whose byte at fn_ffid is another field (a table's nomm is
	 * 0xff, a cdata's ctypeid anything), not an ffid. Only a GCfunc
	 * (gct ~LJ_TFUNC) has one; builtins' ffids end with the build's.
	 */
	d->func_check_off = lj->gct;
	d->func_check_val = fr->gct_func;
	d->kind_max = lj->nffid && lj->nffid <= 256 ? (uint8_t)(lj->nffid - 1) : 0;
	/*
	 * GCfunc.pc (fn_pc) points at a Lua function's bytecode, sizebc
	 * instructions of 4 bytes, and at a builtin's one pseudo-instruction
	 * (GG_State.bcff[], bc_cfunc_int): while a frame runs, PC (rbx) is
	 * past its function's instruction; a return PC is past a CALL in
	 * its caller's bytecode.
	 */
	d->pc_size_off = lj->pt_sizebc;
	d->pc_unit = 4;
	if (!fr->gc64)
		d->flags |= VMSTACK_VM_F_REF32;
	/* SAVE_NRES < 0: a cframe of lj_vm_cpcall(L, NULL, ...), no Lua frame. */
	d->ar_empty_off = fr->cframe_nres;
	/* An FFI callback's frame: a continuation whose continuation is 1. */
	d->cont_type = fr->frame_cont;
	d->cont_off = fr->frame_contv;
	/*
	 * A metamethod's continuation frame (lj_meta.c's mmcall) keeps the
	 * PC past the instruction that called it: its caller's PC, which
	 * names it ("__index"), as LuaJIT's debug.getinfo does.
	 */
	d->flags |= VMSTACK_VM_F_CONT_PC;
	d->cont_pc_off = fr->frame_contpc;
	/*
	 * A prototype's word tagged with its first line: a freed one's
	 * address taken by another (a chunk load()ed again) is another word.
	 */
	d->flags |= VMSTACK_VM_F_IDENT_TAG;
	d->ident_tag_off = lj->pt_firstline;
	d->cont_val = fr->cont_ffi_callback;
	d->state_ar_off = lj->l_cframe;
	d->ar_mask = fr->cframe_rawmask;
	/*
	 * lj_vm_ffi_callback's cframe still holds the lua_State of the last
	 * callback until lj_ccallback_enter links it (SAVE_CFRAME), and again
	 * after lj_ccallback_leave unlinks it.
	 */
	d->ar_prev_off = fr->cframe_prev;
	d->ar_chain_max = VMSTACK_VM_AR_CHAIN_MAX;
	/*
	 * Traces: G->vmstate is the running trace's number, J->trace[] its
	 * GCtrace. GC64 keeps DISPATCH (G + g2disp) in r14 in trace code;
	 * without GC64 nothing does, and G is the anchor variable's main
	 * lua_State + l2g (no such variable: traces are not attributed).
	 */
	if (fr->gc64) {
		d->jit_reg = VMSTACK_VM_REG_R14;
		d->jit_anchor_adj = -lj->g2disp;
	} else if (anchor) {
		d->jit_reg = VMSTACK_VM_REG_NONE;
		d->jit_anchor_ptr = anchor;
		d->jit_anchor_adj = lj->l2g;
	}
	if (fr->gc64 || anchor)
		d->flags |= VMSTACK_VM_F_JIT | VMSTACK_VM_F_JIT_NEAR;
	d->jit_id_off = lj->g_vmstate;
	d->jit_table_off = lj->g_j_trace;
	d->jit_count_off = lj->g_j_sizetrace;
	d->jit_code_off = lj->tr_mcode;
	d->jit_size_off = lj->tr_szmcode;
	d->jit_state_off = lj->g_cur_l;
	d->jit_top_off = lj->g_jit_base;	/* BASE of the trace */
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
	/*
	 * What the VM does, as jit.p's "v" mode reads it (G->vmstate):
	 * [GC] in a collector's step, [JIT compiler] from a trace exit to
	 * the assembler (EXIT, RECORD, OPT, ASM: jit.p's "J"). G is L's.
	 */
	d->flags |= VMSTACK_VM_F_VM_STATE;
	d->vms_g_off = lj->l_glref;
	d->vms_off = lj->g_vmstate;
	d->vms_gc = lj->vmst_gc;
	d->vms_jit_lo = lj->vmst_asm;
	d->vms_jit_hi = lj->vmst_exit;
	if (!(d->flags & VMSTACK_VM_F_JIT))
		return;
	/*
	 * lj_gc_step_jit, which compiled code calls, runs the GC with
	 * G->vmstate ~LJ_VMST_GC, no trace's number; exit stubs are in no
	 * trace. Both lie in the JIT's code areas (lj_mcode.c: each starts
	 * with an MCLink, next then size), and G->jit_base is the trace's
	 * BASE throughout. Upstream's 512 KiB of 64 KiB areas are 8;
	 * OpenResty's 40 MiB would be 640: the newest 64 are searched.
	 */
	d->flags |= VMSTACK_VM_F_JIT_AREAS;
	d->jit_area_off = lj->g_j_mcarea;
	d->jit_areas_max = VMSTACK_VM_JIT_AREAS_MAX;
	/*
	 * A trace exit: vm_exit_handler has stored the trace's BASE in
	 * L->base when it calls lj_trace_exit, which restores the frames
	 * the trace kept in registers (and steps the GC when the trace
	 * exited for it); the interpreter's cframe is in L->cframe's chain.
	 */
	d->flags |= VMSTACK_VM_F_JIT_EXIT;
	d->exit_anchor_off = fr->exit_dispatch;
	d->exit_state = lj->vmst_exit;
	d->exit_gc_state = lj->vmst_gc;
}

static enum vmstack_detect luajit_detect(const struct vmstack_map *m, int pid,
					 struct vmstack_vm_found *f, char *why,
					 size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	const struct luajit_layout *lj;
	/* The interpreter's first 64 KiB of code (LuaJIT's is 14 to 20). */
	static uint8_t vmcode[64 << 10];
	uint64_t start, end, vaddr, lo, anchor = 0, from, to;
	size_t n;
	char build_id[128], version[64];
	GElf_Sym sym;

	if (!elf ||
	    (vmstack_elf_symbol(elf, LUAJIT_API_SYMBOL, &sym) &&
	     vmstack_elf_symbol_prefix(elf, "luaJIT_version_", version, sizeof(version))))
		return VMSTACK_DETECT_NO;
	/* Another mapping of the file may hold the code. */
	if (luajit_vm_range(m, &start, &end, &vaddr) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	if (vmstack_elf_build_id(elf, build_id, sizeof(build_id)))
		snprintf(build_id, sizeof(build_id), "none");
	lj = luajit_known_build(build_id);
	if (!lj)
		lj = luajit_dwarf_build(elf, build_id, why, len);
	if (!lj)
		return VMSTACK_DETECT_UNKNOWN;
	n = end - start < sizeof(vmcode) ? end - start : sizeof(vmcode);
	if (vmstack_elf_read(elf, vaddr, vmcode, n))
		n = 0;
	if (!luajit_code_agrees(elf, lj, vmcode, n, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	/* The anchor variable, where the process has it (load bias: m's). */
	if (lj->anchor && !vmstack_elf_symbol(elf, lj->anchor, &sym))
		anchor = sym.st_value + (m->start - lo);
	if (anchor && !luajit_process_agrees(lj, pid, anchor, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	luajit_desc(lj, start, end, anchor, &f->desc);
	/* Not found: a sample there is cut, as before the handler was known. */
	if ((f->desc.flags & VMSTACK_VM_F_JIT_EXIT) &&
	    !luajit_exit_entry(lj->fr->gc64, vmcode, n, &from, &to)) {
		f->desc.exit_entry_start = start + from;
		f->desc.exit_entry_end = start + to;
	}
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
	    read_ref(lj, pid, proto + lj->pt_lineinfo, &lineinfo) || !lineinfo ||
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

/*
 * The name of @proto: "CHUNK:LINE" (user/vm/lua_name.h) after @prefix;
 * LINE is the function's first line if @line < 0.
 */
static int luajit_proto_name(const struct luajit_layout *lj, int pid, uint64_t proto,
			     const char *prefix, int line, struct vmstack_name_buf *out)
{
	uint64_t chunk;
	uint32_t clen;
	int32_t first;
	char name[200];

	if (read_ref(lj, pid, proto + lj->pt_chunkname, &chunk) ||
	    read_target(pid, proto + lj->pt_firstline, &first, 4) ||
	    read_target(pid, chunk + lj->str_len, &clen, 4))
		return -1;
	if (clen >= sizeof(name))
		clen = sizeof(name) - 1;
	if (read_target(pid, chunk + lj->str_data, name, clen))
		return -1;
	name[clen] = 0;
	vmstack_lua_name(out, prefix, name, line < 0 ? first : line);
	return 0;
}

/* A trace: "TRACE_N chunk:line" where it starts, as LuaJIT's perf map has it. */
static int luajit_trace_name(const struct luajit_layout *lj, int pid, uint64_t trace,
			     struct vmstack_name_buf *out)
{
	uint64_t proto, startpc, bc;
	uint16_t no;
	uint8_t gct;
	char prefix[16];
	int line;

	if (read_target(pid, trace + lj->gct, &gct, 1) || gct != lj->fr->gct_trace ||
	    read_target(pid, trace + lj->tr_traceno, &no, 2) ||
	    read_ref(lj, pid, trace + lj->tr_startpt, &proto) ||
	    read_ref(lj, pid, trace + lj->tr_startpc, &startpc))
		return -1;
	/* The line of the trace's first bytecode, else its function's. */
	bc = proto + lj->proto_size;
	line = startpc > bc ? luajit_line(lj, pid, proto, (startpc - bc) / 4) : -1;
	snprintf(prefix, sizeof(prefix), "TRACE_%u ", no);
	return luajit_proto_name(lj, pid, proto, prefix, line, out);
}

uint64_t vmstack_luajit_tagged_proto(const void *build, int pid, uint64_t value)
{
	const struct luajit_layout *lj = build;
	uint64_t pt = value & ((1ULL << VMSTACK_VM_IDENT_TAG_SHIFT) - 1);
	uint32_t tag = (uint32_t)(value >> VMSTACK_VM_IDENT_TAG_SHIFT) & VMSTACK_VM_IDENT_TAG_MASK;
	int32_t first;

	/*
	 * Tag 0 is not checked: a word of a text descriptor that names its
	 * frames with this runtime carries none (a first line that is a
	 * multiple of 1024 neither).
	 */
	if (read_target(pid, pt + lj->pt_firstline, &first, 4) ||
	    (tag && ((uint32_t)first & VMSTACK_VM_IDENT_TAG_MASK) != tag))
		return 0;
	return pt;
}

static int luajit_name(const void *build, int pid, const struct vmstack_frame *f,
		       struct vmstack_name_buf *out)
{
	const struct luajit_layout *lj = build;
	uint64_t pt;
	uint8_t ffid;

	switch (f->kind) {
	case VMSTACK_FRAME_SCRIPT:
		/* Not named from another prototype than was sampled: unreadable. */
		pt = vmstack_luajit_tagged_proto(lj, pid, f->value);
		return pt ? luajit_proto_name(lj, pid, pt, "", -1, out) : -1;
	case VMSTACK_FRAME_JIT:
		return luajit_trace_name(lj, pid, f->value, out);
	case VMSTACK_FRAME_BUILTIN:
		if (f->value & VMSTACK_VM_VMS_WORD) {
			snprintf(out->function, sizeof(out->function), "%s",
				 f->value == (VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_GC) ? "[GC]" :
				 f->value == (VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_JIT) ?
				 "[JIT compiler]" : "[VM state]");
			return 0;
		}
		/*
		 * The ffid the module read when it sampled (F_BUILTIN_KIND);
		 * from a module older than ABI 3.6 the function, read now.
		 */
		if (f->value < 256)
			ffid = (uint8_t)f->value;
		else if (read_target(pid, f->value + lj->fn_ffid, &ffid, 1))
			return -1;
		if (ffid < lj->nffid && lj->ffid_names[ffid])
			snprintf(out->function, sizeof(out->function), "%s", lj->ffid_names[ffid]);
		else
			snprintf(out->function, sizeof(out->function), "[builtin %u]", ffid);
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
	.help = "LuaJIT 2.1 in any mapped file (executable or library): builds known by "
		"build-id (Debian 12's, OpenResty's) or described by their own DWARF (Tarantool)",
	.detect = luajit_detect,
	.namer = luajit_name,
	.site_namer = vmstack_luajit_site_name,
	.sites_from_desc3 = true,
};
