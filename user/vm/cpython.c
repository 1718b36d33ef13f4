// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.11 on x86-64, in python3.11 or in a libpython3.11.so that a C
 * program embeds: find _PyEval_EvalFrameDefault, describe its frames to
 * the module, name them: function qualname in file.py at LINE.
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
 * What a build's structures look like is a struct cpython_layout, chosen
 * by the version the file carries (Py_Version): the offsets are those of
 * CPython's headers at that version (Include/cpython/pystate.h,
 * Include/internal/pycore_frame.h, Include/cpython/code.h,
 * Include/cpython/unicodeobject.h, Include/cpython/bytesobject.h at
 * v3.11.2), the same in every 3.11 build for x86-64. Where the _PyCFrame
 * sits in the C frame is the compiler's choice, a fact about one build: it
 * is read off the build's own code (the instruction that links it into
 * the thread state), and a build whose code does not show it is refused.
 */
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpython_lines.h"
#include "elf_facts.h"
#include "runtime.h"
#include "file.h"
#include "util.h"

struct cpython_layout {
	unsigned int major, minor;	/* Py_Version's, e.g. 3, 11 */
	/*
	 * _PyRuntime.interpreters.main: the main interpreter (.head is the
	 * newest, a subinterpreter once a program makes one).
	 */
	int32_t rt_interp_main;
	int32_t is_threads_head;	/* PyInterpreterState.threads.head */
	/* PyThreadState */
	int32_t ts_next, ts_interp, ts_initialized, ts_cframe, ts_native_tid;
	/* _PyCFrame */
	int32_t cf_current_frame, cf_previous;
	/* _PyInterpreterFrame */
	int32_t fr_code, fr_previous, fr_prev_instr, fr_is_entry;
	int32_t ob_type;
	/* PyCodeObject */
	int32_t co_firstlineno, co_filename, co_qualname, co_linetable, co_code;
	/* PyASCIIObject, PyCompactUnicodeObject, PyBytesObject */
	int32_t str_length, str_state, str_ascii_data, str_compact_data;
	int32_t bytes_size, bytes_data;
};

/* CPython 3.11 (v3.11.0 .. v3.11.x): checked on Debian 12's 3.11.2. */
static const struct cpython_layout py311 = {
	.major = 3, .minor = 11,
	.rt_interp_main = 0x30,
	.is_threads_head = 0x10,
	.ts_next = 0x08, .ts_interp = 0x10, .ts_initialized = 0x18,
	.ts_cframe = 0x38, .ts_native_tid = 0xa0,
	.cf_current_frame = 0x08, .cf_previous = 0x10,
	.fr_code = 0x20, .fr_previous = 0x30, .fr_prev_instr = 0x38, .fr_is_entry = 0x44,
	.ob_type = 0x08,
	.co_firstlineno = 0x48, .co_filename = 0x70, .co_qualname = 0x80,
	.co_linetable = 0x88, .co_code = 0xb8,
	.str_length = 0x10, .str_state = 0x20, .str_ascii_data = 0x30,
	.str_compact_data = 0x48,
	.bytes_size = 0x10, .bytes_data = 0x20,
};

static const struct cpython_layout *const cpython_layouts[] = { &py311 };

/*
 * One interpreter as found in a process: its layout, and where its code
 * objects' type is (the check that an identity is a code object). Kept
 * for the whole run (namers hold it), in a table that never moves.
 */
struct cpython_build {
	const struct cpython_layout *L;
	uint64_t code_type;
	char name[48];
};

#define CPYTHON_BUILDS_MAX 16
static struct cpython_build cpython_builds[CPYTHON_BUILDS_MAX];
static unsigned int cpython_nbuilds;

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

/* Py_Version: PY_VERSION_HEX, 0x030b02f0 for 3.11.2 final. */
static int py_version(Elf *elf, uint64_t *hex)
{
	GElf_Sym sym;

	*hex = 0;
	return vmstack_elf_symbol(elf, "Py_Version", &sym) || sym.st_size < 4 ||
	       vmstack_elf_read(elf, sym.st_value, hex, 4) ? -1 : 0;
}

/*
 * The running interpreter's own pointers agree with the layout: its first
 * thread state belongs to its first interpreter and says it is set up.
 * Before Py_Initialize there is nothing to contradict it.
 */
static bool process_agrees(const struct cpython_layout *L, int pid, uint64_t runtime,
			   char *why, size_t len)
{
	uint64_t interp = 0, ts = 0, back = 0;
	int32_t init = 0;

	if (pid <= 0 || read_target(pid, runtime + L->rt_interp_main, &interp, 8) || !interp ||
	    read_target(pid, interp + L->is_threads_head, &ts, 8) || !ts)
		return true;
	if (!read_target(pid, ts + L->ts_interp, &back, 8) && back == interp &&
	    !read_target(pid, ts + L->ts_initialized, &init, 4) && init == 1)
		return true;
	snprintf(why, len, "its running interpreter disagrees with the 3.%u layout "
		 "(thread state 0x%" PRIx64 " of interpreter 0x%" PRIx64 ")",
		 L->minor, ts, interp);
	return false;
}

static enum vmstack_detect cpython_detect(const struct vmstack_map *m, int pid,
					  struct vmstack_vm_found *f, char *why,
					  size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	const struct cpython_layout *L = NULL;
	struct vmstack_vm_desc *d = &f->desc;
	GElf_Sym eval, runtime, code_type;
	unsigned char prologue[PROLOGUE_SCAN];
	struct cpython_build *b;
	uint64_t lo, hex, bias;
	int32_t cframe;
	size_t i, scan;

	if (!elf || py_version(elf, &hex) ||
	    vmstack_elf_symbol(elf, "_PyEval_EvalFrameDefault", &eval) ||
	    vmstack_elf_symbol(elf, "_PyRuntime", &runtime) ||
	    vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	if (eval.st_value < lo || eval.st_value + eval.st_size > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	for (i = 0; i < sizeof(cpython_layouts) / sizeof(cpython_layouts[0]); i++)
		if (cpython_layouts[i]->major == (hex >> 24 & 0xff) &&
		    cpython_layouts[i]->minor == (hex >> 16 & 0xff))
			L = cpython_layouts[i];
	if (!L) {
		snprintf(why, len, "CPython %u.%u.%u, a version vmstack does not know",
			 (unsigned int)(hex >> 24 & 0xff), (unsigned int)(hex >> 16 & 0xff),
			 (unsigned int)(hex >> 8 & 0xff));
		return VMSTACK_DETECT_UNKNOWN;
	}
	scan = eval.st_size < sizeof(prologue) ? eval.st_size : sizeof(prologue);
	if (vmstack_elf_symbol(elf, "PyCode_Type", &code_type) || !scan ||
	    vmstack_elf_read(elf, eval.st_value, prologue, scan)) {
		snprintf(why, len, "CPython %u.%u without PyCode_Type or _PyEval_EvalFrameDefault's code",
			 L->major, L->minor);
		return VMSTACK_DETECT_UNKNOWN;
	}
	cframe = cframe_offset(L, prologue, scan);
	if (cframe < 0) {
		snprintf(why, len, "this build's _PyEval_EvalFrameDefault does not link its _PyCFrame "
			 "the way vmstack knows (no \"lea N(%%rsp)\" stored to tstate->cframe)");
		return VMSTACK_DETECT_UNKNOWN;
	}
	bias = m->start - lo;
	if (!process_agrees(L, pid, runtime.st_value + bias, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	b = NULL;
	for (i = 0; i < cpython_nbuilds; i++)
		if (cpython_builds[i].L == L && cpython_builds[i].code_type == code_type.st_value + bias)
			b = &cpython_builds[i];
	if (!b) {
		if (cpython_nbuilds == CPYTHON_BUILDS_MAX) {
			snprintf(why, len, "more than %d CPython interpreters in one recording",
				 CPYTHON_BUILDS_MAX);
			return VMSTACK_DETECT_UNKNOWN;
		}
		b = &cpython_builds[cpython_nbuilds++];
		b->L = L;
		b->code_type = code_type.st_value + bias;
		snprintf(b->name, sizeof(b->name), "CPython %u.%u.%u", L->major, L->minor,
			 (unsigned int)(hex >> 8 & 0xff));
	}
	memset(d, 0, sizeof(*d));
	d->code_start = eval.st_value + bias;
	d->code_end = d->code_start + eval.st_size;
	d->flags = VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC | VMSTACK_VM_F_NO_BUILTINS |
		   VMSTACK_VM_F_AR_CHAIN | VMSTACK_VM_F_TOP_AR | VMSTACK_VM_F_FUNC_IDENT |
		   VMSTACK_VM_F_KIND_WORD;
	/*
	 * The thread's own state: main interpreter -> threads.head -> next
	 * ... (threads of subinterpreters are not looked for).
	 */
	d->state_from = VMSTACK_VM_STATE_THREAD;
	d->state_addr = runtime.st_value + bias + L->rt_interp_main;
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
	d->kind_word = b->code_type;
	d->frame_pc_off = L->fr_prev_instr;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	f->build = b;
	f->build_name = b->name;
	return VMSTACK_DETECT_YES;
}

/* A str's text as UTF-8 (compact strings only: code objects' are), or -1. */
static int read_str(const struct cpython_layout *L, int pid, uint64_t s, char *buf, size_t len)
{
	uint64_t n;
	uint32_t state, kind, c;
	unsigned char raw[1024];
	size_t i, o = 0;

	if (!s || read_target(pid, s + L->str_length, &n, 8) ||
	    read_target(pid, s + L->str_state, &state, 4) || !(state >> 5 & 1))
		return -1;
	kind = state >> 2 & 7;
	if ((kind != 1 && kind != 2 && kind != 4) || n > sizeof(raw) / kind)
		return -1;
	if (read_target(pid, s + ((state >> 6 & 1) ? L->str_ascii_data : L->str_compact_data),
			raw, n * kind))
		return -1;
	for (i = 0; i < n; i++) {
		if (kind == 1)
			c = raw[i];
		else if (kind == 2)
			c = (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8;
		else
			memcpy(&c, raw + 4 * i, 4);
		if (o + 5 > len)
			break;
		if (c < 0x80) {
			buf[o++] = (char)c;
		} else if (c < 0x800) {
			buf[o++] = (char)(0xc0 | c >> 6);
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			buf[o++] = (char)(0xe0 | c >> 12);
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			buf[o++] = (char)(0xf0 | (c >> 18 & 7));
			buf[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	buf[o] = 0;
	return 0;
}

/* The line the frame is at: from its last instruction, else the first line. */
static int frame_line(const struct cpython_layout *L, int pid, uint64_t code,
		      uint64_t prev_instr, int first)
{
	static unsigned char table[65536];
	uint64_t bytes, n;
	int64_t index;
	int line;

	if (!prev_instr || read_target(pid, code + L->co_linetable, &bytes, 8) ||
	    read_target(pid, bytes + L->bytes_size, &n, 8) || n > sizeof(table) ||
	    (n && read_target(pid, bytes + L->bytes_data, table, n)))
		return first;
	/* A frame not started yet points before its first instruction. */
	index = ((int64_t)prev_instr - (int64_t)(code + L->co_code)) / 2;
	if (index < -1 || index > (int64_t)(8 * n + 8))
		return first;
	line = vmstack_py311_line(table, n, first, (long)index);
	return line > 0 ? line : first;
}

/*
 * The code object that is the frame's value: function qualname in file
 * co_filename, at the frame's line, shown "qualname (file.py:LINE)".
 */
static int cpython_name(const void *build, int pid, const struct vmstack_frame *f,
			struct vmstack_name_buf *out)
{
	const struct cpython_build *b = build;
	const struct cpython_layout *L;
	uint64_t code = f->value, type, qual, file;
	int32_t first;
	int line;

	if (!b || f->kind != VMSTACK_FRAME_SCRIPT)
		return -1;
	L = b->L;
	if (read_target(pid, code + L->ob_type, &type, 8) || type != b->code_type ||
	    read_target(pid, code + L->co_firstlineno, &first, 4) ||
	    read_target(pid, code + L->co_qualname, &qual, 8) ||
	    read_target(pid, code + L->co_filename, &file, 8) ||
	    read_str(L, pid, qual, out->function, sizeof(out->function)) ||
	    read_str(L, pid, file, out->file, sizeof(out->file)))
		return -1;
	line = frame_line(L, pid, code, f->pc, first);
	out->line = line > 0 ? (uint32_t)line : 0;
	out->start_line = first > 0 ? (uint32_t)first : 0;
	out->flags = VMSTACK_NAME_AT_LINE;
	return 0;
}

const struct vmstack_runtime vmstack_rt_cpython = {
	.name = "cpython",
	.alias = "python",
	.label = "CPython",
	.help = "CPython 3.11 in python3.11 or a program linked with libpython3.11 (any 3.11 build for x86-64; Python frames with their current line)",
	.detect = cpython_detect,
	.namer = cpython_name,
	.names_by_pc = true,
};
