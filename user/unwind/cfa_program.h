/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF call frame instructions (a CIE's initial ones, an FDE's), run
 * over the neutral frame state: the direct reader's interpreter.
 */
#ifndef VMSTACK_UNWIND_CFA_PROGRAM_H
#define VMSTACK_UNWIND_CFA_PROGRAM_H

#include "unwind/dwarf_cursor.h"
#include "unwind/frame_state.h"

/* A CIE as its FDEs need it. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int has_z;
	struct frame_state init;	/* after its initial instructions */
};

/*
 * Run the instructions at @c from address @loc with state @st. With @t, a
 * row at each advance (up to @end) and at the end; without, a CIE's
 * initial instructions (no advances allowed). 0, or -1 for what is not
 * known here.
 */
int cfa_program_run(struct cursor *c, const struct cie *cie, struct frame_state *st,
		    uint64_t loc, uint64_t end, struct vmstack_cfi_table *t);

#endif
