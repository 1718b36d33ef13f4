/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file's CFI (.eh_frame, read directly, or with libdw where that does not
 * know a form) reduced to compact unwind rows the module can apply at
 * sample time: CFA = rsp|rbp + N, rbp saved at CFA + M or unchanged,
 * return address at CFA - 8. Addresses whose rule
 * does not reduce (DRAP realignment, expressions) get VMSTACK_UW_FP, so
 * the module falls back to the frame pointer there.
 */
#ifndef VMSTACK_UNWIND_CFI_H
#define VMSTACK_UNWIND_CFI_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

struct vmstack_cfi_row {
	uint64_t vaddr;			/* link-time address where it starts */
	struct vmstack_uw_row rule;	/* rule.start unused here */
};

/* Why a frame's rule did not reduce to a module rule (reduce.c). */
enum vmstack_cfi_refusal {
	VMSTACK_CFI_REDUCED,		/* not refused */
	VMSTACK_CFI_CFA_EXPRESSION,	/* CFA by an expression (DRAP) or not given */
	VMSTACK_CFI_CFA_REGISTER,	/* CFA off a register other than rsp, rbp */
	VMSTACK_CFI_CFA_OFFSET,		/* CFA's offset past 32 bits */
	VMSTACK_CFI_RA_ELSEWHERE,	/* return address not at CFA - 8 */
	VMSTACK_CFI_REFUSALS
};

struct vmstack_cfi_table {
	struct vmstack_cfi_row *rows;	/* sorted; each holds up to the next */
	size_t n, cap;
	size_t fdes, fallback_rows;
	/* fallback_rows by reason (before neighbours merge, as fallback_rows) */
	size_t refused[VMSTACK_CFI_REFUSALS];
};

/* 0 on success (possibly with no rows), -1 if the file has no usable CFI. */
int vmstack_cfi_build(Elf *elf, struct vmstack_cfi_table *t);
/*
 * Its two paths, for the unit tests: .eh_frame read directly (-1 for
 * anything it does not know), and libdw's, which it falls back to.
 */
int vmstack_cfi_build_direct(Elf *elf, struct vmstack_cfi_table *t);
int vmstack_cfi_build_libdw(Elf *elf, struct vmstack_cfi_table *t);
/* The range of the FDE that covers @addr. 0 or -1. */
int vmstack_cfi_fde_range(Elf *elf, uint64_t addr, uint64_t *start, uint64_t *end);
/*
 * The rows for the part [lo, hi) of the file's address space, as the module
 * wants them for a mapping at runtime address map_start of link-time
 * address lo. Returns the number of rows written to out (malloc'd).
 */
size_t vmstack_cfi_slice(const struct vmstack_cfi_table *t, uint64_t lo,
			 uint64_t hi, struct vmstack_uw_row **out);
void vmstack_cfi_free(struct vmstack_cfi_table *t);
/* A refusal's name, as vmstack-cfi-dump prints it ("cfa-expression"). */
const char *vmstack_cfi_refusal_name(enum vmstack_cfi_refusal why);

#endif
