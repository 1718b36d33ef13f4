// SPDX-License-Identifier: GPL-2.0
/*
 * CPython on x86-64, in python3.X or in a libpython3.X.so that a C
 * program embeds: found by what the file exports (Py_Version,
 * _PyEval_EvalFrameDefault, _PyRuntime, PyCode_Type), never by its name;
 * frames named "qualname (file.py:LINE)".
 *
 * The version the file carries (Py_Version; 3.9's and 3.10's Py_GetVersion)
 * chooses how its structures are known: 3.11 from a table (the same in
 * every x86-64 build, py311.c); 3.9, 3.10 (frame_object.c) and 3.12 from
 * the build's own DWARF (layout_dwarf.c); 3.13 and later from the
 * _Py_DebugOffsets the build publishes at the start of _PyRuntime
 * (debug_offsets.c: 3.13's, 3.14's and 3.15's layouts of that struct), 3.13's
 * compared with its DWARF where it has some. A build with neither (a
 * stripped libpython, a distro's) takes its minor version's row of the
 * table generated from the reference builds' DWARF (layout_table.c),
 * once its type objects' sizes agree with the row's; where the build has
 * its own, the row is compared with it. The build's name says which was
 * used. A layout is checked against the running interpreter before
 * anything is uploaded.
 */
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "file.h"
#include "util.h"
#include "vm/cold_part.h"
#include "vm/cpython/cpython.h"

/*
 * A build per interpreter layout and code type's address: each process
 * (ASLR) of a system-wide session has its own.
 */
#define CPYTHON_BUILDS_MAX 64
static struct cpython_build cpython_builds[CPYTHON_BUILDS_MAX];
static unsigned int cpython_nbuilds;

/*
 * Layouts of 3.12+ files, by build-id: DWARF is read once per build, not
 * per process.
 */
#define LAYOUT_CACHE 8
#define CPYTHON_SOURCE_MAX 192	/* where a layout came from, for the build's name */
static struct {
	char build_id[48];
	struct cpython_layout L;
	char source[CPYTHON_SOURCE_MAX];
} layout_cache[LAYOUT_CACHE];
static unsigned int layout_cached;

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
 * thread state belongs to its first interpreter (3.11: and says it is set
 * up). Before Py_Initialize there is nothing to contradict it.
 */
static bool process_agrees(const struct cpython_layout *L, int pid, uint64_t runtime,
			   char *why, size_t len)
{
	uint64_t interp = 0, ts = 0, back = 0;
	int32_t init = 1;
	int32_t at = L->minor == 11 ? L->rt_interp_main : L->rt_interp_head;

	if (pid <= 0 || read_target(pid, runtime + at, &interp, 8) || !interp ||
	    read_target(pid, interp + L->is_threads_head, &ts, 8) || !ts)
		return true;
	if (!read_target(pid, ts + L->ts_interp, &back, 8) && back == interp &&
	    (L->ts_initialized < 0 || !read_target(pid, ts + L->ts_initialized, &init, 4)) &&
	    init == 1)
		return true;
	snprintf(why, len, "its running interpreter disagrees with the 3.%u layout "
		 "(thread state 0x%" PRIx64 " of interpreter 0x%" PRIx64 ")",
		 L->minor, ts, interp);
	return false;
}

/* The table's row for 3.@minor, or NULL. */
static const struct cpython_layout_row *table_row(unsigned int minor)
{
	unsigned int i;

	for (i = 0; i < cpython_layout_table_rows; i++)
		if (cpython_layout_table[i].L.minor == minor)
			return &cpython_layout_table[i];
	return NULL;
}

/*
 * What the file's own type objects say of its objects, as the row's
 * reference build said it: PyCode_Type's tp_basicsize (3.12+: where a
 * code object's instructions start, the row's co_code), and 3.9's and
 * 3.10's PyFrame_Type's (their frame object). A build whose structures
 * differ from the row's shows it here first.
 */
static bool sizes_agree(const struct cpython_file *cf, const struct cpython_layout_row *r,
			char *why, size_t len)
{
	static const char *const type[2] = { "PyCode_Type", "PyFrame_Type" };
	int32_t want[2] = { r->code_basicsize, r->frame_basicsize };
	GElf_Sym sym;
	int64_t size;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (want[i] < 0)
			continue;
		size = -1;
		if (vmstack_elf_symbol(cf->elf, type[i], &sym) ||
		    vmstack_elf_read(cf->elf, sym.st_value + r->type_basicsize, &size, 8) ||
		    size != want[i]) {
			snprintf(why, len, "a build without DWARF%s whose %s says its objects are "
				 "%" PRId64 " bytes, not %d as in %s (the layout table's row)",
				 r->L.minor >= 13 ? " or _Py_DebugOffsets" : "", type[i], size,
				 want[i], r->version);
			return false;
		}
	}
	return true;
}

/*
 * 3.9, 3.10, 3.12 and later: the layout, from DWARF (to 3.13) and (3.13+)
 * the file's _Py_DebugOffsets, else from the table's row for the minor version;
 * @source says which (and where the build's own differs from the row).
 * 0, or -1 with @why.
 */
static int layout_dwarf(const struct cpython_file *cf, unsigned int minor,
		      struct cpython_layout *L, char *source, size_t slen,
		      char *why, size_t len)
{
	const struct cpython_layout_row *row = table_row(minor);
	struct cpython_layout dw, dbg;
	char dwhy[160] = "";
	const char *field;
	size_t at;
	bool has_dw;
	int has_dbg = 0;
	unsigned int i;

	for (i = 0; cf->build_id && i < layout_cached; i++)
		if (!strcmp(layout_cache[i].build_id, cf->build_id) &&
		    layout_cache[i].L.minor == minor) {
			*L = layout_cache[i].L;
			snprintf(source, slen, "%s", layout_cache[i].source);
			return 0;
		}
	has_dw = !cpython_layout_dwarf(cf->elf, minor, &dw, dwhy, sizeof(dwhy));
	if (minor >= 13) {
		has_dbg = cpython_debug_offsets(cf->elf, &cf->runtime, &dbg, why, len);
		if (has_dbg < 0)
			return -1;
		if (has_dbg && dbg.minor != minor) {
			snprintf(why, len, "its _Py_DebugOffsets are 3.%u's, its Py_Version 3.%u's",
				 dbg.minor, minor);
			return -1;
		}
	}
	if (has_dw && has_dbg) {
		field = cpython_layout_differs(&dw, &dbg);
		if (field) {
			snprintf(why, len, "its _Py_DebugOffsets and its DWARF disagree on %s", field);
			return -1;
		}
		snprintf(source, slen, "_Py_DebugOffsets = DWARF");
		*L = dw;
	} else if (has_dbg) {
		snprintf(source, slen, "_Py_DebugOffsets");
		*L = dbg;
	} else if (has_dw) {
		snprintf(source, slen, "DWARF");
		*L = dw;
	} else if (row) {
		if (!sizes_agree(cf, row, why, len))
			return -1;
		snprintf(source, slen, "the table (%s's DWARF)", row->version);
		*L = row->L;
	} else {
		snprintf(why, len, "a build without DWARF%s (%s)",
			 minor >= 13 ? " or _Py_DebugOffsets" : "", dwhy);
		return -1;
	}
	/* The build's own layout is used; the row it would have had is compared. */
	if (row && (has_dw || has_dbg) && (field = cpython_layout_differs(L, &row->L))) {
		at = strlen(source);
		snprintf(source + at, slen - at, "; the table (%s's DWARF) differs on %s",
			 row->version, field);
	}
	if (cf->build_id && layout_cached < LAYOUT_CACHE) {
		snprintf(layout_cache[layout_cached].build_id,
			 sizeof(layout_cache[0].build_id), "%s", cf->build_id);
		layout_cache[layout_cached].L = *L;
		snprintf(layout_cache[layout_cached++].source, sizeof(layout_cache[0].source),
			 "%s", source);
	}
	return 0;
}

/*
 * The build for @L with code objects' type at @code_type, made once; its
 * name says the version and where the layout came from (@source; NULL:
 * 3.11's table), so one of another patch level or source is another build.
 */
static struct cpython_build *build_of(const struct cpython_layout *L, uint64_t code_type,
				      uint64_t hex, const char *source, char *why, size_t len)
{
	struct cpython_build *b;
	char name[sizeof(b->name)];
	unsigned int i;

	if (source)
		snprintf(name, sizeof(name), "CPython %u.%u.%u (layout from %s)", L->major,
			 L->minor, (unsigned int)(hex >> 8 & 0xff), source);
	else
		snprintf(name, sizeof(name), "CPython %u.%u.%u", L->major, L->minor,
			 (unsigned int)(hex >> 8 & 0xff));
	for (i = 0; i < cpython_nbuilds; i++)
		if (cpython_builds[i].L.minor == L->minor &&
		    !cpython_layout_differs(&cpython_builds[i].L, L) &&
		    cpython_builds[i].code_type == code_type && !strcmp(cpython_builds[i].name, name))
			return &cpython_builds[i];
	if (cpython_nbuilds == CPYTHON_BUILDS_MAX) {
		snprintf(why, len, "more than %d CPython interpreters in one recording",
			 CPYTHON_BUILDS_MAX);
		return NULL;
	}
	b = &cpython_builds[cpython_nbuilds++];
	memset(b, 0, sizeof(*b));
	b->L = *L;
	b->code_type = code_type;
	memcpy(b->name, name, sizeof(name));
	return b;
}

static enum vmstack_detect cpython_detect(const struct vmstack_map *m, int pid,
					  struct vmstack_vm_found *f, char *why,
					  size_t len)
{
	struct cpython_file cf = { .elf = m->file ? vmstack_file_elf(m->file) : NULL };
	struct cpython_layout L;
	struct cpython_shim_addrs a;
	struct cpython_build *b;
	GElf_Sym code_type, none;
	unsigned int major, minor;
	char source[CPYTHON_SOURCE_MAX] = "";
	unsigned char prologue[256];
	const char *err;
	uint64_t lo, cold_lo, cold_hi;
	size_t plen;

	if (!cf.elf || vmstack_elf_symbol(cf.elf, "_PyEval_EvalFrameDefault", &cf.eval) ||
	    vmstack_elf_symbol(cf.elf, "_PyRuntime", &cf.runtime) ||
	    vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	/* Older ones, and one whose version is not read, are named by unwalked.c. */
	if (py_version(cf.elf, &cf.hex) &&
	    (!cpython_version_string(cf.elf, &cf.hex) || (cf.hex >> 16 & 0xff) < 9))
		return VMSTACK_DETECT_NO;
	if (cf.eval.st_value < lo || cf.eval.st_value + cf.eval.st_size > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	major = cf.hex >> 24 & 0xff;
	minor = cf.hex >> 16 & 0xff;
	cf.bias = m->start - lo;
	cf.build_id = vmstack_file_build_id(m->file);
	if (cf.build_id && !*cf.build_id)
		cf.build_id = NULL;
	/* Past 3.13: a version whose _Py_DebugOffsets vmstack can read. */
	if (major != 3 || minor < 9 || (minor > 13 && !cpython_debug_offsets_known(minor))) {
		snprintf(why, len, "CPython %u.%u.%u, a version vmstack does not know",
			 major, minor, (unsigned int)(cf.hex >> 8 & 0xff));
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (vmstack_elf_symbol(cf.elf, "PyCode_Type", &code_type)) {
		snprintf(why, len, "CPython %u.%u without PyCode_Type", major, minor);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (minor == 11) {
		L = cpython_py311;
		if (cpython_py311_desc(&cf, &L, code_type.st_value + cf.bias, &f->desc, why,
				       len) != VMSTACK_DETECT_YES)
			return VMSTACK_DETECT_UNKNOWN;
	} else if (layout_dwarf(&cf, minor, &L, source, sizeof(source), why, len)) {
		return VMSTACK_DETECT_UNKNOWN;
	}
	L.major = major;
	L.minor = minor;
	a.shim_sp = -1;
	a.shim_bp = a.shim_bp_from = 0;
	plen = cf.eval.st_size < sizeof(prologue) ? cf.eval.st_size : sizeof(prologue);
	if (minor >= 12 && !vmstack_elf_read(cf.elf, cf.eval.st_value, prologue, plen)) {
		a.shim_sp = cpython_shim_place(prologue, plen, &L);
		if (a.shim_sp < 0)
			a.shim_bp = cpython_shim_place_bp(prologue, plen, &L, &a.shim_bp_from);
	}
	if (minor >= 12 && a.shim_sp < 0 && !a.shim_bp)
		snprintf(source + strlen(source), sizeof(source) - strlen(source),
			 "; its shim's place not in its code: unproved");
	if (!process_agrees(&L, pid, cf.runtime.st_value + cf.bias, why, len))
		return VMSTACK_DETECT_UNKNOWN;
	b = build_of(&L, code_type.st_value + cf.bias, cf.hex, minor == 11 ? NULL : source,
		     why, len);
	if (!b)
		return VMSTACK_DETECT_UNKNOWN;
	b->shim_sp = a.shim_sp;
	b->shim_bp = a.shim_bp;
	f->build = b;
	f->build_name = b->name;
	if (minor == 11)
		return VMSTACK_DETECT_YES;
	if (L.shim_none && vmstack_elf_symbol(cf.elf, "_Py_NoneStruct", &none)) {
		snprintf(why, len, "CPython %u.%u without _Py_NoneStruct", major, minor);
		return VMSTACK_DETECT_UNKNOWN;
	}
	a.code_start = cf.eval.st_value + cf.bias;
	a.code_end = a.code_start + cf.eval.st_size;
	a.runtime = cf.runtime.st_value + cf.bias;
	a.code_type = b->code_type;
	a.none = L.shim_none ? none.st_value + cf.bias : 0;
	err = minor <= 10 ? cpython_frame_object_prog(&L, &a, &f->desc4) :
			    cpython_shim_prog(&L, &a, &f->desc4);
	if (err) {
		snprintf(why, len, "its program could not be built: %s", err);
		return VMSTACK_DETECT_UNKNOWN;
	}
	/*
	 * _PyEval_EvalFrameDefault.cold, in its native frame: Debian's 3.14
	 * (PGO) runs its whole eval loop there.
	 */
	if (!vmstack_cold_part(cf.elf, &cf.eval, &cold_lo, &cold_hi) && cold_lo >= lo &&
	    cold_hi <= lo + (m->end - m->start)) {
		f->desc4.ranges[1].start = cold_lo + cf.bias;
		f->desc4.ranges[1].end = cold_hi + cf.bias;
	}
	f->prog = true;
	return VMSTACK_DETECT_YES;
}

const struct vmstack_runtime vmstack_rt_cpython = {
	.name = "cpython",
	.alias = "python",
	.label = "CPython",
	.help = "CPython 3.9 to 3.15 in python3.X or a program linked with libpython3.X (3.11: any x86-64 build; 3.9, 3.10, 3.12: the build's DWARF, else a table of the layouts of pyenv's 3.9.18, 3.10.13, 3.12.1; 3.13: its _Py_DebugOffsets or DWARF, else 3.13.0's table; 3.14, 3.15: its _Py_DebugOffsets; Python frames with their current line)",
	.detect = cpython_detect,
	.namer = cpython_name,
	.names_by_pc = true,
};
