// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.11 on x86-64, described in ABI 3's structured form (desc3.h,
 * compiled to a program on attach).
 *
 * How 3.11 keeps its frames: each C activation of _PyEval_EvalFrameDefault
 * has a _PyCFrame on its own C stack, linked into the thread state
 * (tstate->cframe, then ->previous down to tstate->root_cframe); its
 * current_frame is the innermost _PyInterpreterFrame it runs, and the
 * frames go on through ->previous down to the one marked is_entry, where
 * that activation began (Python-to-Python calls do not recurse in C).
 * So the module, at each native frame of _PyEval_EvalFrameDefault, takes
 * the _PyCFrame at that frame's sp + a fixed offset (F_TOP_AR), proves it
 * linked on the interrupted thread's own thread state (STATE_THREAD: the
 * one whose native_thread_id is the thread's; F_AR_CHAIN), and shows the
 * frames from its current_frame down to is_entry. A thread that does not
 * hold the GIL shows its own frames too: its _PyCFrames stay linked while
 * it waits or runs C code.
 *
 * The offsets are those of CPython's headers at that version
 * (Include/cpython/pystate.h, Include/internal/pycore_frame.h,
 * Include/cpython/code.h, Include/cpython/unicodeobject.h,
 * Include/cpython/bytesobject.h at v3.11.2), the same in every 3.11 build
 * for x86-64. Where the _PyCFrame sits in the C frame is the compiler's
 * choice, a fact about one build: it is read off the build's own code (the
 * instruction that links it into the thread state), and a build whose code
 * does not show it is refused.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/cpython/cpython.h"

/* CPython 3.11 (v3.11.0 .. v3.11.x): checked on Debian 12's 3.11.2. */
const struct cpython_layout cpython_py311 = {
	.major = 3, .minor = 11,
	.rt_interp_main = 0x30, .rt_interp_head = 0x28,
	.is_next = 0x00, .is_threads_head = 0x10,
	.ts_next = 0x08, .ts_interp = 0x10, .ts_initialized = 0x18,
	.ts_cframe = 0x38, .ts_native_tid = 0xa0, .ts_current_frame = -1,
	.cf_current_frame = 0x08, .cf_previous = 0x10,
	.fr_code = 0x20, .fr_previous = 0x30, .fr_prev_instr = 0x38, .fr_is_entry = 0x44,
	.fr_owner = -1, .owner_cstack = -1,
	.ob_type = 0x08,
	.co_firstlineno = 0x48, .co_filename = 0x70, .co_qualname = 0x80,
	.co_linetable = 0x88, .co_code = 0xb8,
	.str_length = 0x10, .str_state = 0x20, .str_ascii_data = 0x30,
	.str_compact_data = 0x48,
	.bytes_size = 0x10, .bytes_data = 0x20,
	.ts_frame = -1, .ts_thread_id = -1, .fr_lasti = -1, .co_name = -1,
};

/* How far into _PyEval_EvalFrameDefault the _PyCFrame gets linked. */
#define PROLOGUE_SCAN 256

/*
 * A memory operand with an 8-bit displacement at @p (ModRM, [SIB], disp8)
 * whose base is not rsp: its length and displacement, or 0.
 */
static size_t disp8_operand(const unsigned char *p, size_t left, bool rex_b, int *disp)
{
	if (left < 2 || (p[0] & 0xc0) != 0x40)
		return 0;
	if ((p[0] & 7) != 4) {
		*disp = (int8_t)p[1];
		return 2;
	}
	/* SIB 0x24: no index, base rsp or (REX.B) r12; only r12 is a structure. */
	if (left < 3 || p[1] != 0x24 || !rex_b)
		return 0;
	*disp = (int8_t)p[2];
	return 3;
}

/*
 * The build's own code says where its _PyCFrame is: early in
 * _PyEval_EvalFrameDefault, "lea DISP(%rsp),%reg", later "mov %reg,
 * ts_cframe(%base)" (tstate->cframe = &cframe), and "movb $1,
 * fr_is_entry(%base)" (frame->is_entry = true). Returns DISP, or -1.
 */
static int32_t cframe_offset(const struct cpython_layout *L, const unsigned char *p,
			     size_t len)
{
	int32_t lea[16], found = -1;
	bool entry = false;
	size_t i, n;
	int disp;

	for (i = 0; i < 16; i++)
		lea[i] = -1;
	for (i = 0; i + 4 <= len; i++) {
		unsigned int rex = (p[i] & 0xf0) == 0x40 ? p[i] : 0, at = i + !!rex, reg;

		if (at + 3 > len)
			break;
		reg = (p[at + 1] >> 3 & 7) | (rex & 4) << 1;
		/* movb $1, disp8(%base): [REX] c6 /0 disp8 01 */
		if (p[at] == 0xc6 && !(p[at + 1] & 0x38) &&
		    (n = disp8_operand(p + at + 1, len - at - 1, rex & 1, &disp)) &&
		    at + 1 + n < len && disp == L->fr_is_entry && p[at + 1 + n] == 1)
			entry = true;
		if (!(rex & 8))
			continue;
		/* lea disp(%rsp), %reg: REX.W 8d, mod 01 or 10, rm 100, SIB 0x24 */
		if (p[at] == 0x8d && (p[at + 1] & 7) == 4 && at + 3 < len && p[at + 2] == 0x24 &&
		    !(rex & 1)) {
			if ((p[at + 1] & 0xc0) == 0x40)
				lea[reg] = (int8_t)p[at + 3];
			else if ((p[at + 1] & 0xc0) == 0x80 && at + 7 <= len)
				memcpy(&lea[reg], p + at + 3, 4);
		}
		/* mov %reg, disp8(%base): REX.W 89 */
		if (p[at] == 0x89 && lea[reg] >= 0 && found < 0 &&
		    disp8_operand(p + at + 1, len - at - 1, rex & 1, &disp) &&
		    disp == L->ts_cframe)
			found = lea[reg];
	}
	return entry ? found : -1;
}


enum vmstack_detect cpython_py311_desc(const struct cpython_file *cf,
				       const struct cpython_layout *L, uint64_t code_type,
				       struct vmstack_vm_desc *d, char *why, size_t len)
{
	unsigned char prologue[PROLOGUE_SCAN];
	size_t scan = cf->eval.st_size < sizeof(prologue) ? cf->eval.st_size : sizeof(prologue);
	int32_t cframe;

	if (!scan || vmstack_elf_read(cf->elf, cf->eval.st_value, prologue, scan)) {
		snprintf(why, len, "CPython %u.%u without _PyEval_EvalFrameDefault's code",
			 L->major, L->minor);
		return VMSTACK_DETECT_UNKNOWN;
	}
	cframe = cframe_offset(L, prologue, scan);
	if (cframe < 0) {
		snprintf(why, len, "this build's _PyEval_EvalFrameDefault does not link its _PyCFrame "
			 "the way vmstack knows (no \"lea N(%%rsp)\" stored to tstate->cframe)");
		return VMSTACK_DETECT_UNKNOWN;
	}
	memset(d, 0, sizeof(*d));
	d->code_start = cf->eval.st_value + cf->bias;
	d->code_end = d->code_start + cf->eval.st_size;
	d->flags = VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC | VMSTACK_VM_F_NO_BUILTINS |
		   VMSTACK_VM_F_AR_CHAIN | VMSTACK_VM_F_TOP_AR | VMSTACK_VM_F_FUNC_IDENT |
		   VMSTACK_VM_F_KIND_WORD | VMSTACK_VM_F_IDENT_TAG;
	/* A freed code object's address reused by another: another word. */
	d->ident_tag_off = L->co_firstlineno;
	/*
	 * The thread's own state: main interpreter -> threads.head -> next
	 * ... (threads of subinterpreters are not looked for).
	 */
	d->state_from = VMSTACK_VM_STATE_THREAD;
	d->state_addr = cf->runtime.st_value + cf->bias + L->rt_interp_main;
	d->thr_head_off = L->is_threads_head;
	d->thr_next_off = L->ts_next;
	d->thr_tid_off = L->ts_native_tid;
	d->thr_max = VMSTACK_VM_THREADS_MAX;
	d->check_off = L->ts_initialized;
	d->check_val = 1;
	/* The activation: its _PyCFrame, linked from tstate->cframe. */
	d->ar_off = cframe;
	d->state_ar_off = L->ts_cframe;
	d->ar_prev_off = L->cf_previous;
	d->ar_chain_max = VMSTACK_VM_AR_CHAIN_MAX;
	d->top_off = L->cf_current_frame;
	/* Frames: ->previous, down to is_entry (a bool; the u16 holds owner too). */
	d->link = VMSTACK_VM_LINK_POINTER;
	d->link_off = L->fr_previous;
	d->flags_off = L->fr_is_entry;
	d->bottom_flags = 0x00ff;
	d->func_off = L->fr_code;
	d->func_mask = ~0ULL;
	d->kind_off = L->ob_type;
	d->kind_word = code_type;
	d->frame_pc_off = L->fr_prev_instr;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	return VMSTACK_DETECT_YES;
}
