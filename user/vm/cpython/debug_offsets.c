// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's own account of its layout (3.13 and later): _PyRuntime starts
 * with a struct _Py_DebugOffsets, a cookie "xdebugpy", the version
 * (PY_VERSION_HEX), whether the build is free-threaded, then per structure
 * its size and its fields' offsets, as 64-bit values. The file's .data
 * holds them as the process starts with them, so they are read from the
 * file, before the process runs any code.
 *
 * Where each value sits in the struct changes with the version (3.14 added
 * fields to most sections): debug_offsets_table.c gives it per version,
 * generated from each version's header (tests/tools/pydebugoffsets-gen.py);
 * a struct of a version it has no row for is refused by its version
 * field, not read by guess.
 *
 * What the offsets do not give is a fact per version, kept in versions[]
 * below with its source: the owner of the frame the eval loop pushes on
 * its C stack where C enters it (the shim), that the shim runs Py_None,
 * whether f_executable is a tagged _PyStackRef, and where a compact
 * non-ASCII string's text starts (PyCompactUnicodeObject: PyASCIIObject,
 * then utf8_length and utf8, 16 bytes; Include/cpython/unicodeobject.h at
 * v3.13.0, v3.14.10 and v3.15.2). interpreters.main is not needed: every
 * interpreter is searched.
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/cpython/cpython.h"

#define DEBUG_OFFSETS_MAX	1024	/* bytes read: the largest row's size or more */

static const struct {
	unsigned int minor;
	int32_t owner_shim;	/* the shim frame's owner */
	uint8_t exec_tag_bits;	/* f_executable's tag bits */
} versions[] = {
	/*
	 * v3.13.0: Python/ceval.c, entry_frame.owner = FRAME_OWNED_BY_CSTACK
	 * (3, Include/internal/pycore_frame.h), entry_frame.f_executable =
	 * Py_None; f_executable a PyObject *.
	 */
	{ 13, 3, 0 },
	/*
	 * v3.14.10: Python/ceval.c, entry.frame.owner =
	 * FRAME_OWNED_BY_INTERPRETER (3; FRAME_OWNED_BY_CSTACK became 4 and
	 * is set nowhere, Include/internal/pycore_interpframe_structs.h),
	 * entry.frame.f_executable = PyStackRef_None; f_executable a
	 * _PyStackRef: with the GIL, the object's address | Py_TAG_BITS (3;
	 * bit 0 set on deferred and immortal references, both bits on a
	 * tagged int, Include/internal/pycore_stackref.h).
	 */
	{ 14, 3, 3 },
	/*
	 * v3.15.2: as 3.14 (FRAME_OWNED_BY_INTERPRETER, 3, now the enum's
	 * last, Include/internal/pycore_interpframe_structs.h; Py_TAG_BITS 3,
	 * pycore_stackref.h); Debian's 3.15.2 stores both in its entry frame
	 * ("movl $0x30000, -0x48(%rbp)": owner 3 at 74; _Py_NoneStruct | 1 at
	 * f_executable).
	 */
	{ 15, 3, 3 },
};

static uint64_t at(const unsigned char *raw, unsigned int pos)
{
	uint64_t v;

	memcpy(&v, raw + pos, 8);
	return v;
}

/* An offset within a structure: a value no struct of CPython's reaches is not one. */
static int32_t field(const unsigned char *raw, const struct cpython_debug_offsets_row *r,
		     enum cpython_do f, bool *bad)
{
	uint64_t v = at(raw, r->at[f]);

	if (v >= 1U << 20)
		*bad = true;
	return (int32_t)v;
}

/* The row for 3.@minor's struct, and the facts the struct does not give. */
static const struct cpython_debug_offsets_row *row_of(unsigned int minor, unsigned int *fact)
{
	unsigned int i, j;

	for (i = 0; i < cpython_debug_offsets_rows; i++)
		for (j = 0; j < sizeof(versions) / sizeof(versions[0]); j++)
			if (cpython_debug_offsets_table[i].minor == minor && versions[j].minor == minor) {
				*fact = j;
				return &cpython_debug_offsets_table[i];
			}
	return NULL;
}

bool cpython_debug_offsets_known(unsigned int minor)
{
	unsigned int fact;

	return row_of(minor, &fact);
}

int cpython_debug_offsets(Elf *elf, const GElf_Sym *runtime, struct cpython_layout *L,
			  char *why, size_t len)
{
	const struct cpython_debug_offsets_row *r;
	unsigned char raw[DEBUG_OFFSETS_MAX];
	unsigned int minor, i = 0;
	uint64_t version;
	bool bad = false;

	/* The version sits at 8 in every one: cookie, then version. */
	if (runtime->st_size < 16 || vmstack_elf_read(elf, runtime->st_value, raw, 16) ||
	    memcmp(raw, "xdebugpy", 8))
		return 0;
	version = at(raw, 8);
	minor = version >> 16 & 0xff;
	r = (version >> 24) == 3 ? row_of(minor, &i) : NULL;
	if (!r) {
		snprintf(why, len, "its _Py_DebugOffsets are those of CPython %u.%u, a layout of "
			 "them vmstack does not know", (unsigned int)(version >> 24 & 0xff), minor);
		return -1;
	}
	/* A pre-release's struct may be laid out otherwise than the release's. */
	if ((version >> 4 & 0xf) != 0xf) {
		snprintf(why, len, "a pre-release of CPython 3.%u (its _Py_DebugOffsets may be "
			 "laid out otherwise than the release's row)", minor);
		return -1;
	}
	if (r->size > sizeof(raw) || runtime->st_size < r->size ||
	    vmstack_elf_read(elf, runtime->st_value, raw, r->size)) {
		snprintf(why, len, "its _Py_DebugOffsets (CPython 3.%u's, %u bytes) cannot be read",
			 minor, r->size);
		return -1;
	}
	if (at(raw, r->at[CPY_DO_FREE_THREADED])) {
		snprintf(why, len, "a free-threaded build (its frames and objects are laid "
			 "out otherwise; vmstack does not walk it)");
		return -1;
	}
	memset(L, 0, sizeof(*L));
	L->major = 3;
	L->minor = minor;
	L->rt_interp_main = -1;
	L->rt_interp_head = field(raw, r, CPY_DO_RT_INTERP_HEAD, &bad);
	L->is_next = field(raw, r, CPY_DO_IS_NEXT, &bad);
	L->is_threads_head = field(raw, r, CPY_DO_IS_THREADS_HEAD, &bad);
	L->ts_next = field(raw, r, CPY_DO_TS_NEXT, &bad);
	L->ts_interp = field(raw, r, CPY_DO_TS_INTERP, &bad);
	L->ts_initialized = -1;
	L->ts_cframe = L->cf_current_frame = L->cf_previous = -1;
	L->ts_current_frame = field(raw, r, CPY_DO_TS_CURRENT_FRAME, &bad);
	L->ts_native_tid = field(raw, r, CPY_DO_TS_NATIVE_TID, &bad);
	L->fr_code = field(raw, r, CPY_DO_FR_EXECUTABLE, &bad);
	L->fr_previous = field(raw, r, CPY_DO_FR_PREVIOUS, &bad);
	L->fr_prev_instr = field(raw, r, CPY_DO_FR_INSTR_PTR, &bad);
	L->fr_is_entry = -1;
	L->fr_owner = field(raw, r, CPY_DO_FR_OWNER, &bad);
	L->owner_cstack = versions[i].owner_shim;
	L->shim_none = true;
	L->exec_tag_bits = versions[i].exec_tag_bits;
	L->ob_type = field(raw, r, CPY_DO_OB_TYPE, &bad);
	L->co_firstlineno = field(raw, r, CPY_DO_CO_FIRSTLINENO, &bad);
	L->co_filename = field(raw, r, CPY_DO_CO_FILENAME, &bad);
	L->co_qualname = field(raw, r, CPY_DO_CO_QUALNAME, &bad);
	L->co_linetable = field(raw, r, CPY_DO_CO_LINETABLE, &bad);
	L->co_code = field(raw, r, CPY_DO_CO_CODE_ADAPTIVE, &bad);
	L->str_length = field(raw, r, CPY_DO_STR_LENGTH, &bad);
	L->str_state = field(raw, r, CPY_DO_STR_STATE, &bad);
	L->str_ascii_data = field(raw, r, CPY_DO_STR_ASCII_SIZE, &bad);
	L->str_compact_data = L->str_ascii_data + 16;
	L->bytes_size = field(raw, r, CPY_DO_BYTES_OB_SIZE, &bad);
	L->bytes_data = field(raw, r, CPY_DO_BYTES_OB_SVAL, &bad);
	L->ts_frame = L->ts_thread_id = L->fr_lasti = L->co_name = -1;
	if (bad) {
		snprintf(why, len, "its _Py_DebugOffsets hold offsets past 1 MB: not offsets");
		return -1;
	}
	/*
	 * What every version since 3.11 lays out alike: a struct read at the
	 * wrong places shows here (its neighbours are offsets too).
	 */
	if (L->ob_type != 8 || L->fr_code != 0 || L->fr_previous != 8 || L->bytes_size != 16 ||
	    L->bytes_data != 32 || L->str_length != 16 || L->fr_owner >= 256) {
		snprintf(why, len, "its _Py_DebugOffsets do not read as CPython 3.%u's (ob_type "
			 "at %d, f_executable at %d, previous at %d)", minor, L->ob_type,
			 L->fr_code, L->fr_previous);
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
	if (a->exec_tag_bits != b->exec_tag_bits)
		return "exec_tag_bits";
	return a->shim_none != b->shim_none ? "shim_none" : NULL;
}
