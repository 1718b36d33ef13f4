/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython, one runtime for the versions vmstack walks (runtime.h): what
 * its files share. A build's structures are a struct cpython_layout,
 * from a table (3.11: the same in every x86-64 build), from the build's
 * own DWARF, or from the offsets 3.13 and later publish in _PyRuntime
 * (_Py_DebugOffsets); the walk is ABI 3's structured descriptor for 3.11
 * (py311.c) and an ABI 4 program for 3.9 and 3.10 (frame_object.c) and
 * for 3.12 and later (shim_prog.c); the naming (name.c) reads code objects
 * the same way in all of them.
 */
#ifndef VMSTACK_VM_CPYTHON_H
#define VMSTACK_VM_CPYTHON_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "vm/runtime.h"

struct cpython_layout {
	unsigned int major, minor;	/* Py_Version's, e.g. 3, 11 */
	/*
	 * _PyRuntime.interpreters: .main, the main interpreter (3.11's
	 * walk), and .head, the newest, whose ->next leads to the others
	 * (3.12+: every interpreter's threads are looked at).
	 */
	int32_t rt_interp_main, rt_interp_head;
	int32_t is_next, is_threads_head;	/* PyInterpreterState */
	/* PyThreadState; ts_cframe -1 in 3.13+ (ts_current_frame instead) */
	int32_t ts_next, ts_interp, ts_initialized, ts_cframe, ts_native_tid;
	int32_t ts_current_frame;
	/* _PyCFrame (3.11, 3.12) */
	int32_t cf_current_frame, cf_previous;
	/*
	 * _PyInterpreterFrame: fr_code is 3.13+'s f_executable, fr_prev_instr
	 * its instr_ptr; fr_is_entry 3.11's, fr_owner 3.12's and later.
	 */
	int32_t fr_code, fr_previous, fr_prev_instr, fr_is_entry, fr_owner;
	/*
	 * The owner of the shim frame where C entered the loop (3.12+):
	 * FRAME_OWNED_BY_CSTACK, 3.14's FRAME_OWNED_BY_INTERPRETER.
	 */
	int32_t owner_cstack;
	bool shim_none;		/* 3.13+: the shim's f_executable is Py_None */
	/* 3.14+: f_executable is a _PyStackRef, these low bits its tag */
	uint8_t exec_tag_bits;
	int32_t ob_type;
	/*
	 * PyCodeObject; co_code: where its instructions start
	 * (co_code_adaptive); co_linetable: 3.9's co_lnotab.
	 */
	int32_t co_firstlineno, co_filename, co_qualname, co_linetable, co_code;
	/* PyASCIIObject, PyCompactUnicodeObject, PyBytesObject */
	int32_t str_length, str_state, str_ascii_data, str_compact_data;
	int32_t bytes_size, bytes_data;
	/*
	 * 3.9 and 3.10 only (-1 elsewhere): tstate->frame, tstate->thread_id
	 * (the thread's pthread_self(), its fs base: they keep no native id),
	 * PyFrameObject.f_lasti (an int: 3.9 in bytes, 3.10 in code units),
	 * co_name (they have no co_qualname). The frame's link and code are
	 * fr_previous (f_back) and fr_code (f_code).
	 */
	int32_t ts_frame, ts_thread_id, fr_lasti, co_name;
};

/*
 * Every offset of struct cpython_layout, in its order: X(field) each.
 * What compares two layouts and what writes the table (layout_table.c)
 * go through this list; a field added to the struct and not here fails
 * the generator's size check.
 */
#define CPYTHON_LAYOUT_FIELDS(X)						\
	X(rt_interp_main) X(rt_interp_head) X(is_next) X(is_threads_head)	\
	X(ts_next) X(ts_interp) X(ts_initialized) X(ts_cframe) X(ts_native_tid) \
	X(ts_current_frame) X(cf_current_frame) X(cf_previous)		\
	X(fr_code) X(fr_previous) X(fr_prev_instr) X(fr_is_entry) X(fr_owner)	\
	X(owner_cstack) X(ob_type)						\
	X(co_firstlineno) X(co_filename) X(co_qualname) X(co_linetable) X(co_code) \
	X(str_length) X(str_state) X(str_ascii_data) X(str_compact_data)	\
	X(bytes_size) X(bytes_data)						\
	X(ts_frame) X(ts_thread_id) X(fr_lasti) X(co_name)

/*
 * A layout a reference build's DWARF gave, for builds of its minor
 * version that have neither DWARF nor (3.13) _Py_DebugOffsets. The rows
 * (layout_table.c) are written by tests/tools/vmstack-pylayout-gen from
 * the pyenv builds, never typed: which build each came from is in it.
 * tp_basicsize: what the reference build's PyCode_Type (and, 3.9 and
 * 3.10, PyFrame_Type) says its objects' size is, at type_basicsize in
 * PyTypeObject; a build that says otherwise is not laid out as the row.
 */
struct cpython_layout_row {
	const char *version;		/* "3.12.1" */
	const char *build_id;		/* the reference file's GNU build-id */
	int32_t type_basicsize;		/* PyTypeObject.tp_basicsize */
	int32_t code_basicsize;		/* PyCode_Type's */
	int32_t frame_basicsize;	/* PyFrame_Type's (3.9, 3.10), else -1 */
	struct cpython_layout L;
};

extern const struct cpython_layout_row cpython_layout_table[];
extern const unsigned int cpython_layout_table_rows;

/*
 * One interpreter as found in a process: its layout, and where its code
 * objects' type is (the check that an identity is a code object). Kept
 * for the whole run (namers hold it), in a table that never moves.
 */
struct cpython_build {
	struct cpython_layout L;
	uint64_t code_type;
	/* 3.12+: where the eval frame keeps its shim, as cpython_shim_addrs */
	int32_t shim_sp, shim_bp;
	char name[232];
};

/* What detection knows of the file before a version's own part runs. */
struct cpython_file {
	Elf *elf;
	uint64_t hex;		/* Py_Version: 0x030c01f0 for 3.12.1 final */
	uint64_t bias;		/* process address - file address */
	GElf_Sym eval, runtime;	/* _PyEval_EvalFrameDefault, _PyRuntime */
	const char *build_id;	/* or NULL */
};

/*
 * 3.11 (py311.c): the layout, and the descriptor in @d (code objects'
 * type at @code_type) once the build's _PyCFrame offset is read off its
 * code; VMSTACK_DETECT_YES or _UNKNOWN.
 */
extern const struct cpython_layout cpython_py311;
enum vmstack_detect cpython_py311_desc(const struct cpython_file *cf,
				       const struct cpython_layout *L, uint64_t code_type,
				       struct vmstack_vm_desc *d, char *why, size_t len);

/*
 * 3.9, 3.10, 3.12 and 3.13 (layout_dwarf.c): the layout of
 * the build from its DWARF; 0, or -1 with @why.
 */
int cpython_layout_dwarf(Elf *elf, unsigned int minor, struct cpython_layout *L,
			 char *why, size_t len);
/*
 * _Py_DebugOffsets (3.13+) as @elf's _PyRuntime starts out: 1 and *L
 * filled; 0 if the file has none (no cookie); -1 with @why for offsets
 * vmstack cannot read (a version of the struct debug_offsets_table.c has
 * no row for).
 */
int cpython_debug_offsets(Elf *elf, const GElf_Sym *runtime, struct cpython_layout *L,
			  char *why, size_t len);
/* The values of struct _Py_DebugOffsets vmstack reads. */
enum cpython_do {
	CPY_DO_VERSION, CPY_DO_FREE_THREADED,
	CPY_DO_RT_INTERP_HEAD, CPY_DO_IS_NEXT, CPY_DO_IS_THREADS_HEAD,
	CPY_DO_TS_NEXT, CPY_DO_TS_INTERP, CPY_DO_TS_CURRENT_FRAME, CPY_DO_TS_NATIVE_TID,
	CPY_DO_FR_PREVIOUS, CPY_DO_FR_EXECUTABLE, CPY_DO_FR_INSTR_PTR, CPY_DO_FR_OWNER,
	CPY_DO_CO_FILENAME, CPY_DO_CO_QUALNAME, CPY_DO_CO_LINETABLE, CPY_DO_CO_FIRSTLINENO,
	CPY_DO_CO_CODE_ADAPTIVE, CPY_DO_OB_TYPE, CPY_DO_BYTES_OB_SIZE, CPY_DO_BYTES_OB_SVAL,
	CPY_DO_STR_STATE, CPY_DO_STR_LENGTH, CPY_DO_STR_ASCII_SIZE,
	CPY_DO_FIELDS
};

/*
 * Where each of them sits in one version's struct _Py_DebugOffsets, and
 * the struct's size: debug_offsets_table.c, generated from the version's
 * header by tests/tools/pydebugoffsets-gen.py.
 */
struct cpython_debug_offsets_row {
	unsigned int minor;
	unsigned int size;
	uint16_t at[CPY_DO_FIELDS];
};

extern const struct cpython_debug_offsets_row cpython_debug_offsets_table[];
extern const unsigned int cpython_debug_offsets_rows;

/* Whether 3.@minor's _Py_DebugOffsets can be read (a row, and its facts). */
bool cpython_debug_offsets_known(unsigned int minor);
/* The first field where @a and @b differ (among those both give), or NULL. */
const char *cpython_layout_differs(const struct cpython_layout *a,
				   const struct cpython_layout *b);

/* Process addresses the 3.12+ program needs. */
struct cpython_shim_addrs {
	uint64_t code_start, code_end;	/* _PyEval_EvalFrameDefault */
	uint64_t runtime;		/* _PyRuntime */
	uint64_t code_type;		/* PyCode_Type */
	uint64_t none;			/* _Py_NoneStruct (3.13+'s shim) */
	int32_t shim_sp;		/* the shim at the eval frame's sp + this; -1: unknown */
	int32_t shim_bp;		/* or at its bp + this (< 0); 0: unknown */
	int32_t shim_bp_from;		/* bp is the frame's own from code_start + this */
};

/*
 * Where _PyEval_EvalFrameDefault keeps its shim frame, from its code
 * @code (its first @len bytes; shim_place.c): "movb $FRAME_OWNED_BY_CSTACK,
 * DISP(%rsp)" (entry_frame.owner = ...) makes it sp + DISP - fr_owner;
 * -1 when the code does not show it.
 */
int32_t cpython_shim_place(const unsigned char *code, size_t len, const struct cpython_layout *L);
/*
 * The same for a function that keeps a frame pointer: a store of the
 * owner's value to DISP(%rbp) (with its neighbours, in a wider store)
 * and the shim's address taken, "lea SHIM(%rbp), REG": SHIM (< 0), and
 * in *@own_from the offset of the first instruction after "mov
 * %rsp,%rbp" (before it, rbp is the caller's); 0 when the code does not
 * show both.
 */
int32_t cpython_shim_place_bp(const unsigned char *code, size_t len,
			      const struct cpython_layout *L, int32_t *own_from);

/*
 * The ABI 4 program for 3.12+ (shim_prog.c) in @d: the thread state
 * by native thread id, frames down to the shim. NULL, or why it cannot be
 * built.
 */
const char *cpython_shim_prog(const struct cpython_layout *L,
			      const struct cpython_shim_addrs *a, struct vmstack_vm_desc4 *d);

struct vm_prog;
/*
 * Register @code, a code object, tagged with its co_firstlineno (desc3.h's
 * F_IDENT_TAG, which 3.11's descriptor sets): another code object at a
 * freed one's address is another word, and cpython_name() tells which it
 * reads. @tmp: a scratch register.
 */
void cpython_prog_tag(struct vm_prog *p, const struct cpython_layout *L, int code, int tmp);
/*
 * In a program being built (vm/prog.h): r9 = the thread state, of any
 * interpreter's list, whose u64 at @key_off equals register @key_reg
 * (at most VMSTACK_VM_THREADS_MAX looked at), r10 = 1; else to @nostate.
 * Uses r2, r7, r12.
 */
void cpython_prog_find_thread(struct vm_prog *p, const struct cpython_layout *L,
			      uint64_t runtime, int32_t key_off, int key_reg, int nostate);

/*
 * A file without Py_Version (3.10 and older; frame_object.c): whether its
 * Py_GetVersion formats "3.N.M" (then *hex as Py_Version would be, a
 * final release assumed, and 1).
 */
int cpython_version_string(Elf *elf, uint64_t *hex);
/*
 * 3.9 and 3.10 (frame_object.c): their program, as the 3.12 one. Their
 * layout: cpython_layout_dwarf().
 */
const char *cpython_frame_object_prog(const struct cpython_layout *L,
				      const struct cpython_shim_addrs *a,
				      struct vmstack_vm_desc4 *d);

/* Naming (name.c): runtime.h's namer for every version. */
int cpython_name(const void *build, int pid, const struct vmstack_frame *f,
		 struct vmstack_name_buf *out);

#endif
