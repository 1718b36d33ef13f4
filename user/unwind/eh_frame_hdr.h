/* SPDX-License-Identifier: GPL-2.0 */
/*
 * .eh_frame_hdr's search table (PT_GNU_EH_FRAME): every FDE's start
 * address and the FDE's own address, sorted by start. Both readers walk
 * the FDEs in its order.
 */
#ifndef VMSTACK_UNWIND_EH_FRAME_HDR_H
#define VMSTACK_UNWIND_EH_FRAME_HDR_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct eh_frame_hdr {
	const uint8_t *file;	/* the whole file (elf_rawfile) */
	size_t size;
	const uint8_t *table;	/* n pairs of datarel sdata4: start, FDE */
	size_t n;
	uint64_t vaddr;		/* the header's link-time address: their base */
};

/* 0, or -1 without a header in the one encoding GNU ld writes. */
int eh_frame_hdr_find(Elf *elf, struct eh_frame_hdr *h);

static inline uint64_t eh_frame_hdr_entry(const struct eh_frame_hdr *h, size_t i,
					  int fde)
{
	int32_t rel;

	memcpy(&rel, h->table + 8 * i + 4 * fde, 4);
	return h->vaddr + (int64_t)rel;
}

/* The link-time address where FDE @i's code starts. */
static inline uint64_t eh_frame_hdr_start(const struct eh_frame_hdr *h, size_t i)
{
	return eh_frame_hdr_entry(h, i, 0);
}

/* The link-time address of FDE @i itself, in .eh_frame. */
static inline uint64_t eh_frame_hdr_fde(const struct eh_frame_hdr *h, size_t i)
{
	return eh_frame_hdr_entry(h, i, 1);
}

#endif
