// SPDX-License-Identifier: GPL-2.0
/*
 * libdw on the Elf we already hold (the file's, or its separate debug
 * file's), not libdwfl: dwfl would find and open the debug file again and
 * keep its own copy of the process's mappings, which user/process.c and
 * user/file.c already keep.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdlib.h>

#include "lines.h"
#include "util.h"

/* An address range of one compile unit. */
struct cu_range {
	uint64_t lo, hi;
	Dwarf_Die cu;
};

struct vmstack_lines {
	Dwarf *dw;
	struct cu_range *r;
	size_t n;
};

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * The units' ranges from their DIEs, not .debug_aranges: dwarf_addrdie
 * needs that section, which clang does not write by default.
 */
static void read_ranges(struct vmstack_lines *l)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Addr base, lo, hi;
	size_t cap = 0;
	Dwarf_Die die;
	ptrdiff_t off;

	for (; !dwarf_get_units(l->dw, cu, &next, NULL, NULL, &die, NULL); cu = next) {
		for (off = 0; (off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0;) {
			/* Code the linker dropped keeps address 0. */
			if (!lo || lo >= hi)
				continue;
			if (l->n == cap) {
				cap = cap ? 2 * cap : 256;
				l->r = xrealloc(l->r, cap * sizeof(*l->r));
			}
			l->r[l->n++] = (struct cu_range){ lo, hi, die };
		}
	}
	if (l->n)
		qsort(l->r, l->n, sizeof(*l->r), cmp_range);
}

struct vmstack_lines *vmstack_lines_open(Elf *elf)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	struct vmstack_lines *l;

	if (!dw)
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->dw = dw;
	read_ranges(l);
	return l;
}

void vmstack_lines_close(struct vmstack_lines *l)
{
	if (!l)
		return;
	dwarf_end(l->dw);
	free(l->r);
	free(l);
}

static Dwarf_Die *find_cu(struct vmstack_lines *l, uint64_t pc)
{
	/* The last range starting at or below pc. */
	size_t lo = count_at_or_below(l->r, l->n, sizeof(*l->r),
				      offsetof(struct cu_range, lo), pc);

	return lo && pc < l->r[lo - 1].hi ? &l->r[lo - 1].cu : NULL;
}

static int is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

/* An inlined instance's names are its abstract origin's (or its declaration's). */
static const char *die_name(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

/* Where inlined instance @die was called from: file and line in its caller. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, struct vmstack_line_frame *f)
{
	Dwarf_Word file = 0, line = 0;
	Dwarf_Attribute a;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) ||
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || file >= nfiles)
		return;
	f->file = dwarf_filesrc(files, file, NULL, NULL);
	f->line = (int)line;
}

int vmstack_lines_at(struct vmstack_lines *l, uint64_t pc,
		     struct vmstack_line_frame *out, int max)
{
	struct vmstack_line_frame chain[64];
	Dwarf_Die *cu = find_cu(l, pc), *scopes = NULL, die;
	Dwarf_Line *line;
	int i, n, m = 0;

	if (!cu || max < 1)
		return 0;
	/* The innermost function at pc, then its physical nesting. */
	n = dwarf_getscopes(cu, pc, &scopes);
	for (i = 0; i < n && !is_function(&scopes[i]); i++)
		;
	if (i < n) {
		die = scopes[i];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&die, &scopes);
	} else {
		n = 0;
	}
	/* Innermost first: each inlined instance gives its caller's line. */
	chain[0] = (struct vmstack_line_frame){ 0 };
	line = dwarf_getsrc_die(cu, pc);
	if (line) {
		chain[0].file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &chain[0].line);
	}
	for (i = 0; i < n && m < (int)(sizeof(chain) / sizeof(chain[0])) - 1; i++) {
		if (!is_function(&scopes[i]))
			continue;
		chain[m].func = die_name(&scopes[i], DW_AT_name);
		chain[m].linkage = die_name(&scopes[i], DW_AT_linkage_name);
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		chain[m].inlined = 1;
		chain[++m] = (struct vmstack_line_frame){ 0 };
		call_site(cu, &scopes[i], &chain[m]);
	}
	free(scopes);
	m++;
	/* Outermost first; past @max, the innermost calls go. */
	for (i = 0; i < m && i < max; i++)
		out[i] = chain[m - 1 - i];
	return i;
}
