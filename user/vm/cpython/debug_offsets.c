// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.13's own account of its layout: _PyRuntime starts with a
 * struct _Py_DebugOffsets (Include/internal/pycore_runtime.h at v3.13.0),
 * a cookie "xdebugpy", the version (PY_VERSION_HEX), whether the build is
 * free-threaded, then per structure its size and its fields' offsets, as
 * 64-bit values. The file's .data holds them as the process starts with
 * them, so they are read from the file, before the process runs any code.
 *
 * Where each value sits in the struct is the struct's layout at v3.13.0
 * (the same bytes, and the same values as its DWARF, in pyenv's 3.13.0:
 * runtime-layouts.md); another version of the struct is refused by its
 * version field, not read by guess.
 *
 * What the offsets do not give (source facts of v3.13.0, kept here):
 * FRAME_OWNED_BY_CSTACK (3, Include/internal/pycore_frame.h), that the
 * shim frame runs Py_None (Python/ceval.c), where a compact non-ASCII
 * string's text starts (PyCompactUnicodeObject: PyASCIIObject, then
 * utf8_length and utf8, 16 bytes; Include/cpython/unicodeobject.h), and
 * interpreters.main (not needed: every interpreter is searched).
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/cpython/cpython.h"

#define DEBUG_OFFSETS_313_SIZE	584

/* Byte positions of the values used, in struct _Py_DebugOffsets at v3.13.0. */
enum {
	DO_VERSION = 8, DO_FREE_THREADED = 16,
	DO_RT_INTERP_HEAD = 40,
	DO_IS_NEXT = 64, DO_IS_THREADS_HEAD = 72,
	DO_TS_NEXT = 168, DO_TS_INTERP = 176, DO_TS_CURRENT_FRAME = 184,
	DO_TS_NATIVE_TID = 200,
	DO_FR_PREVIOUS = 232, DO_FR_EXECUTABLE = 240, DO_FR_INSTR_PTR = 248, DO_FR_OWNER = 264,
	DO_CO_FILENAME = 280, DO_CO_QUALNAME = 296, DO_CO_LINETABLE = 304,
	DO_CO_FIRSTLINENO = 312, DO_CO_CODE_ADAPTIVE = 344,
	DO_OB_TYPE = 360,
	DO_BYTES_OB_SIZE = 520, DO_BYTES_OB_SVAL = 528,
	DO_STR_STATE = 544, DO_STR_LENGTH = 552, DO_STR_ASCII_SIZE = 560,
};

static uint64_t at(const unsigned char *raw, unsigned int pos)
{
	uint64_t v;

	memcpy(&v, raw + pos, 8);
	return v;
}

/* An offset within a structure: a value no struct of CPython's reaches is not one. */
static int32_t field(const unsigned char *raw, unsigned int pos, bool *bad)
{
	uint64_t v = at(raw, pos);

	if (v >= 1U << 20)
		*bad = true;
	return (int32_t)v;
}

int cpython_debug_offsets(Elf *elf, const GElf_Sym *runtime, struct cpython_layout *L,
			  char *why, size_t len)
{
	unsigned char raw[DEBUG_OFFSETS_313_SIZE];
	uint64_t version;
	bool bad = false;

	if (runtime->st_size < sizeof(raw) ||
	    vmstack_elf_read(elf, runtime->st_value, raw, sizeof(raw)) ||
	    memcmp(raw, "xdebugpy", 8))
		return 0;
	version = at(raw, DO_VERSION);
	if ((version >> 16) != 0x030d) {
		snprintf(why, len, "its _Py_DebugOffsets are those of CPython %u.%u, a layout of "
			 "them vmstack does not know", (unsigned int)(version >> 24 & 0xff),
			 (unsigned int)(version >> 16 & 0xff));
		return -1;
	}
	if (at(raw, DO_FREE_THREADED)) {
		snprintf(why, len, "a free-threaded build (its frames and objects are laid "
			 "out otherwise; vmstack does not walk it)");
		return -1;
	}
	memset(L, 0, sizeof(*L));
	L->major = 3;
	L->minor = 13;
	L->rt_interp_main = -1;
	L->rt_interp_head = field(raw, DO_RT_INTERP_HEAD, &bad);
	L->is_next = field(raw, DO_IS_NEXT, &bad);
	L->is_threads_head = field(raw, DO_IS_THREADS_HEAD, &bad);
	L->ts_next = field(raw, DO_TS_NEXT, &bad);
	L->ts_interp = field(raw, DO_TS_INTERP, &bad);
	L->ts_initialized = -1;
	L->ts_cframe = L->cf_current_frame = L->cf_previous = -1;
	L->ts_current_frame = field(raw, DO_TS_CURRENT_FRAME, &bad);
	L->ts_native_tid = field(raw, DO_TS_NATIVE_TID, &bad);
	L->fr_code = field(raw, DO_FR_EXECUTABLE, &bad);
	L->fr_previous = field(raw, DO_FR_PREVIOUS, &bad);
	L->fr_prev_instr = field(raw, DO_FR_INSTR_PTR, &bad);
	L->fr_is_entry = -1;
	L->fr_owner = field(raw, DO_FR_OWNER, &bad);
	L->owner_cstack = 3;
	L->shim_none = true;
	L->ob_type = field(raw, DO_OB_TYPE, &bad);
	L->co_firstlineno = field(raw, DO_CO_FIRSTLINENO, &bad);
	L->co_filename = field(raw, DO_CO_FILENAME, &bad);
	L->co_qualname = field(raw, DO_CO_QUALNAME, &bad);
	L->co_linetable = field(raw, DO_CO_LINETABLE, &bad);
	L->co_code = field(raw, DO_CO_CODE_ADAPTIVE, &bad);
	L->str_length = field(raw, DO_STR_LENGTH, &bad);
	L->str_state = field(raw, DO_STR_STATE, &bad);
	L->str_ascii_data = field(raw, DO_STR_ASCII_SIZE, &bad);
	L->str_compact_data = L->str_ascii_data + 16;
	L->bytes_size = field(raw, DO_BYTES_OB_SIZE, &bad);
	L->bytes_data = field(raw, DO_BYTES_OB_SVAL, &bad);
	L->ts_frame = L->ts_thread_id = L->fr_lasti = L->co_name = -1;
	if (bad) {
		snprintf(why, len, "its _Py_DebugOffsets hold offsets past 1 MB: not offsets");
		return -1;
	}
	return 1;
}

const char *cpython_layout_differs(const struct cpython_layout *a,
				   const struct cpython_layout *b)
{
#define SAME(f)	if (a->f >= 0 && b->f >= 0 && a->f != b->f) return #f;
	CPYTHON_LAYOUT_FIELDS(SAME)
#undef SAME
	return a->shim_none != b->shim_none ? "shim_none" : NULL;
}
