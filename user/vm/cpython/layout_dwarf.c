// SPDX-License-Identifier: GPL-2.0
/*
 * A CPython 3.9, 3.10, 3.12 or 3.13 build's layout from its own DWARF (the pyenv
 * builds and any built with -g; Debian's has a debug package): each
 * offset the walk and the naming use, by the names CPython's headers
 * give them at v3.12.1 and v3.13.0 (Include/internal/pycore_runtime.h,
 * pycore_interp.h, pycore_frame.h, Include/cpython/pystate.h, code.h,
 * unicodeobject.h, bytesobject.h). A name missing from the DWARF is named
 * in the message: no offset is guessed.
 */
#include <stdio.h>
#include <string.h>

#include "dwarf_types.h"
#include "vm/cpython/cpython.h"

/*
 * What every version's naming reads alike: the object header, a code
 * object's first line and file, str and bytes objects.
 */
static void fill_objects(struct vmstack_dwarf_query *q, struct cpython_layout *L)
{
	L->ob_type = vmstack_dwarf_q_off(q, "PyObject", "ob_type");
	L->co_firstlineno = vmstack_dwarf_q_off(q, "PyCodeObject", "co_firstlineno");
	L->co_filename = vmstack_dwarf_q_off(q, "PyCodeObject", "co_filename");
	L->str_length = vmstack_dwarf_q_off(q, "PyASCIIObject", "length");
	L->str_state = vmstack_dwarf_q_off(q, "PyASCIIObject", "state");
	/* Compact strings' text follows the object's header. */
	L->str_ascii_data = vmstack_dwarf_q_size(q, "PyASCIIObject");
	L->str_compact_data = vmstack_dwarf_q_size(q, "PyCompactUnicodeObject");
	L->bytes_size = vmstack_dwarf_q_off(q, "PyVarObject", "ob_size");
	L->bytes_data = vmstack_dwarf_q_off(q, "PyBytesObject", "ob_sval");
}

/* Two members, the second in the struct the first is: a.b. */
static int32_t off2(struct vmstack_dwarf_query *q, const char *type, const char *member,
		    const char *inner_type, const char *inner)
{
	int32_t a = vmstack_dwarf_q_off(q, type, member), b = vmstack_dwarf_q_off(q, inner_type, inner);

	return a < 0 || b < 0 ? -1 : a + b;
}

static void take_cstack(void *arg, const char *name, int64_t value)
{
	if (!strcmp(name, "FRAME_OWNED_BY_CSTACK"))
		*(int32_t *)arg = (int32_t)value;
}

static void fill(struct vmstack_dwarf_query *q, unsigned int minor, struct cpython_layout *L)
{
	memset(L, 0, sizeof(*L));
	L->major = 3;
	L->minor = minor;
	/* struct pyinterpreters and struct pythreads: named in both versions' headers. */
	L->rt_interp_main = off2(q, "_PyRuntimeState", "interpreters", "pyinterpreters", "main");
	L->rt_interp_head = off2(q, "_PyRuntimeState", "interpreters", "pyinterpreters", "head");
	L->is_next = vmstack_dwarf_q_off(q, "PyInterpreterState", "next");
	L->is_threads_head = off2(q, "PyInterpreterState", "threads", "pythreads", "head");
	L->ts_next = vmstack_dwarf_q_off(q, "PyThreadState", "next");
	L->ts_interp = vmstack_dwarf_q_off(q, "PyThreadState", "interp");
	L->ts_native_tid = vmstack_dwarf_q_off(q, "PyThreadState", "native_thread_id");
	L->ts_initialized = -1;	/* 3.11's check; the interp link suffices here */
	if (minor == 12) {
		L->ts_cframe = vmstack_dwarf_q_off(q, "PyThreadState", "cframe");
		L->cf_current_frame = vmstack_dwarf_q_off(q, "_PyCFrame", "current_frame");
		L->cf_previous = vmstack_dwarf_q_off(q, "_PyCFrame", "previous");
		L->ts_current_frame = -1;
		L->fr_code = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "f_code");
		L->fr_prev_instr = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "prev_instr");
	} else {
		/* 3.13 dropped _PyCFrame: the frame is the thread state's own. */
		L->ts_cframe = L->cf_current_frame = L->cf_previous = -1;
		L->ts_current_frame = vmstack_dwarf_q_off(q, "PyThreadState", "current_frame");
		L->fr_code = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "f_executable");
		L->fr_prev_instr = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "instr_ptr");
		/* Python/ceval.c at v3.13.0: entry_frame.f_executable = Py_None. */
		L->shim_none = true;
	}
	L->fr_previous = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "previous");
	L->fr_owner = vmstack_dwarf_q_off(q, "_PyInterpreterFrame", "owner");
	L->fr_is_entry = -1;
	L->owner_cstack = -1;
	if (vmstack_dwarf_enum_of(q->t, "FRAME_OWNED_BY_CSTACK", take_cstack,
				  &L->owner_cstack) <= 0 || L->owner_cstack < 0) {
		if (!q->missing)
			q->missing = "FRAME_OWNED_BY_CSTACK";
	}
	fill_objects(q, L);
	L->co_qualname = vmstack_dwarf_q_off(q, "PyCodeObject", "co_qualname");
	L->co_linetable = vmstack_dwarf_q_off(q, "PyCodeObject", "co_linetable");
	L->co_code = vmstack_dwarf_q_off(q, "PyCodeObject", "co_code_adaptive");
	L->ts_frame = L->ts_thread_id = L->fr_lasti = L->co_name = -1;
}

/*
 * 3.9 and 3.10: names of CPython's headers at v3.9.18 and v3.10.13
 * (Include/cpython/pystate.h, frameobject.h, code.h; pycore_interp.h's
 * tstate_head), the same in both but for the line table: 3.9's co_lnotab,
 * 3.10's co_linetable.
 */
static void fill_frame_object(struct vmstack_dwarf_query *q, unsigned int minor, struct cpython_layout *L)
{
	int32_t interps = vmstack_dwarf_q_off(q, "_PyRuntimeState", "interpreters");

	memset(L, 0, sizeof(*L));
	L->major = 3;
	L->minor = minor;
	L->rt_interp_main = interps + vmstack_dwarf_q_off(q, "pyinterpreters", "main");
	L->rt_interp_head = interps + vmstack_dwarf_q_off(q, "pyinterpreters", "head");
	L->is_next = vmstack_dwarf_q_off(q, "PyInterpreterState", "next");
	L->is_threads_head = vmstack_dwarf_q_off(q, "PyInterpreterState", "tstate_head");
	L->ts_next = vmstack_dwarf_q_off(q, "PyThreadState", "next");
	L->ts_interp = vmstack_dwarf_q_off(q, "PyThreadState", "interp");
	L->ts_frame = vmstack_dwarf_q_off(q, "PyThreadState", "frame");
	L->ts_thread_id = vmstack_dwarf_q_off(q, "PyThreadState", "thread_id");
	L->fr_code = vmstack_dwarf_q_off(q, "PyFrameObject", "f_code");
	L->fr_previous = vmstack_dwarf_q_off(q, "PyFrameObject", "f_back");
	L->fr_lasti = vmstack_dwarf_q_off(q, "PyFrameObject", "f_lasti");
	fill_objects(q, L);
	L->co_name = vmstack_dwarf_q_off(q, "PyCodeObject", "co_name");
	L->co_linetable = vmstack_dwarf_q_off(q, "PyCodeObject",
					     minor == 9 ? "co_lnotab" : "co_linetable");
	/* What 3.9 and 3.10 do not have. */
	L->ts_native_tid = L->ts_initialized = L->ts_cframe = L->ts_current_frame = -1;
	L->cf_current_frame = L->cf_previous = -1;
	L->fr_prev_instr = L->fr_is_entry = L->fr_owner = L->owner_cstack = -1;
	L->co_qualname = L->co_code = -1;
}

int cpython_layout_dwarf(Elf *elf, unsigned int minor, struct cpython_layout *L,
			 char *why, size_t len)
{
	/*
	 * Python/ceval.c's unit defines every type above: looked for there
	 * first (a few ms), in all units only if it lacks one.
	 */
	static const char *const units[] = { "ceval.c", NULL };
	struct vmstack_dwarf_query q = { 0 };
	unsigned int i;

	/*
	 * 3.14's shim is owned by FRAME_OWNED_BY_INTERPRETER and its
	 * f_executable is tagged: what its DWARF says is not all this reads.
	 * Its _Py_DebugOffsets give its layout (debug_offsets.c).
	 */
	if (minor > 13) {
		snprintf(why, len, "DWARF is read for 3.9 to 3.13 only");
		return -1;
	}
	for (i = 0; i < 2; i++) {
		q.t = vmstack_dwarf_types_open(elf, units[i]);
		if (!q.t) {
			snprintf(why, len, "no DWARF");
			return -1;
		}
		q.missing = NULL;
		if (minor <= 10)
			fill_frame_object(&q, minor, L);
		else
			fill(&q, minor, L);
		vmstack_dwarf_types_close(q.t);
		if (!q.missing)
			return 0;
	}
	snprintf(why, len, "its DWARF has no %s", q.missing);
	return -1;
}
