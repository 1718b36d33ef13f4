/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source lines of native code (libdw): the function, file and line of an
 * address, with the functions inlined there, for --lines.
 */
#ifndef VMSTACK_LINES_H
#define VMSTACK_LINES_H

#include <gelf.h>
#include <stdint.h>

struct vmstack_lines;

/* One function at an address, as the line table and scopes give it. */
struct vmstack_line_frame {
	const char *func;	/* DWARF's name; NULL if none */
	const char *linkage;	/* its symbol's name (C++, Rust: mangled); NULL if none */
	const char *file;	/* NULL if unknown */
	int line;		/* 0 if unknown */
	int inlined;		/* inlined into the frame before it */
};

/* The DWARF of @elf (kept open while this lives); NULL if it has none. */
struct vmstack_lines *vmstack_lines_open(Elf *elf);
void vmstack_lines_close(struct vmstack_lines *l);
/*
 * The functions at link-time address @pc, outermost first (the function
 * the code is in, then each inlined call, with the line of the call): at
 * most @max in @out. Strings are libdw's, valid while @l lives. Returns
 * the number of frames; 0 if no compile unit covers @pc.
 */
int vmstack_lines_at(struct vmstack_lines *l, uint64_t pc,
		     struct vmstack_line_frame *out, int max);

#endif
