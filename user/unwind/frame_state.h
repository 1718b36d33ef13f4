/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both CFI readers (eh_frame.c, libdw_frames.c) say about a frame at
 * an address, in one neutral form, and the one reducer that turns it into
 * the module's rule (reduce.c). A reader knows the encodings; the
 * reducer alone decides what the module can apply, and names each
 * refusal, as framehop's translation of DWARF rules to its own does.
 */
#ifndef VMSTACK_UNWIND_FRAME_STATE_H
#define VMSTACK_UNWIND_FRAME_STATE_H

#include <stdint.h>

#include "unwind/cfi.h"

/* DWARF's x86-64 register numbers. */
#define DW_REG_RBP 6
#define DW_REG_RSP 7
#define DW_REG_RA 16

enum cfa_kind {
	CFA_REG,		/* cfa_reg + cfa_off */
	CFA_PLT,		/* x86-64 PLT entries' expression: rsp + 8 at entry */
	CFA_EXPRESSION,		/* any other expression, or no rule */
};

/* Where a register's caller value is. */
enum saved_at {
	SAVED_SAME,		/* unchanged (or unspecified) */
	SAVED_AT_CFA,		/* in memory at CFA + the offset */
	SAVED_ELSEWHERE,	/* another register, an expression, undefined */
};

struct frame_state {
	int signal;		/* a signal trampoline's frame (CIE "S") */
	enum cfa_kind cfa;
	int cfa_reg;
	int64_t cfa_off;
	enum saved_at ra, rbp;
	int64_t ra_off, rbp_off;	/* SAVED_AT_CFA: at CFA + this */
};

/*
 * @st reduced to the module's rule (VMSTACK_UW_FP where it does not, with
 * the refusal counted) as the row from @vaddr on.
 */
void cfi_table_add_state(struct vmstack_cfi_table *t, uint64_t vaddr,
			 const struct frame_state *st);
/* No FDE from @vaddr on (up to the next): the frame pointer there. */
void cfi_table_add_gap(struct vmstack_cfi_table *t, uint64_t vaddr);

#endif
