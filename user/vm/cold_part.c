// SPDX-License-Identifier: GPL-2.0
/*
 * A function's cold part (cold_part.h), found from its code alone: bytes
 * are scanned for the rel32 jumps GCC writes between the two parts (jcc
 * 0f 8x, jmp e9), not decoded, so a stray pattern may count. A range is
 * only taken when it lies in the function's own section (not the PLT,
 * whose one FDE every tail call through it would reach) and jumps come
 * back from it into the function's middle: a function the function
 * tail-calls does not, and a jump back to its first byte is a tail call
 * (another function may make one), not counted.
 */
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "unwind/cfi.h"
#include "vm/cold_part.h"

#define CANDIDATES	64
#define CODE_MAX	(16U << 20)	/* bytes of code read, the function's or a range's */
#define JUMPS_MIN	8		/* both ways */
#define JUMPS_BACK_MIN	4

struct range {
	uint64_t lo, hi;
	unsigned int jumps;
};

/* The target of a rel32 jump at @p[@i] (code at @at), or 0 if none is there. */
static uint64_t jump_at(const unsigned char *p, size_t n, size_t i, uint64_t at)
{
	int32_t rel;

	if (i + 6 <= n && p[i] == 0x0f && (p[i + 1] & 0xf0) == 0x80) {
		memcpy(&rel, p + i + 2, 4);
		return at + i + 6 + (int64_t)rel;
	}
	if (i + 5 <= n && p[i] == 0xe9) {
		memcpy(&rel, p + i + 1, 4);
		return at + i + 5 + (int64_t)rel;
	}
	return 0;
}

static unsigned char *code(Elf *elf, uint64_t at, uint64_t n)
{
	unsigned char *p = n && n <= CODE_MAX ? malloc(n) : NULL;

	if (p && vmstack_elf_read(elf, at, p, n)) {
		free(p);
		return NULL;
	}
	return p;
}

/* The index of the allocated section holding [@lo, @hi), or 0. */
static size_t section_of(Elf *elf, uint64_t lo, uint64_t hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_addr <= lo &&
		    hi <= sh.sh_addr + sh.sh_size)
			return elf_ndxscn(scn);
	return 0;
}

/* Jumps from [@lo, @hi) into @fn past its first byte. */
static unsigned int jumps_back(Elf *elf, const GElf_Sym *fn, uint64_t lo, uint64_t hi)
{
	unsigned char *p = code(elf, lo, hi - lo);
	unsigned int hits = 0;
	uint64_t to;
	size_t i;

	for (i = 0; p && i < hi - lo; i++) {
		to = jump_at(p, hi - lo, i, lo);
		hits += to > fn->st_value && to < fn->st_value + fn->st_size;
	}
	free(p);
	return hits;
}

int vmstack_cold_part(Elf *elf, const GElf_Sym *fn, uint64_t *lo, uint64_t *hi)
{
	unsigned char *p = code(elf, fn->st_value, fn->st_size);
	size_t own = section_of(elf, fn->st_value, fn->st_value + fn->st_size);
	struct range c[CANDIDATES];
	unsigned int nc = 0, k, back, best = 0, best_jumps = 0;
	uint64_t to, s, e;
	size_t i;

	for (i = 0; p && own && i < fn->st_size; i++) {
		to = jump_at(p, fn->st_size, i, fn->st_value);
		if (!to || (to >= fn->st_value && to < fn->st_value + fn->st_size))
			continue;
		for (k = 0; k < nc && !(to >= c[k].lo && to < c[k].hi); k++)
			;
		if (k == nc) {
			/* Not the function's own FDE (code past its symbol's size). */
			if (nc == CANDIDATES || vmstack_cfi_fde_range(elf, to, &s, &e) ||
			    (s < fn->st_value + fn->st_size && e > fn->st_value) ||
			    section_of(elf, s, e) != own)
				continue;
			c[nc++] = (struct range){ s, e, 0 };
		}
		c[k].jumps++;
	}
	free(p);
	for (k = 0; k < nc; k++) {
		back = jumps_back(elf, fn, c[k].lo, c[k].hi);
		if (back < JUMPS_BACK_MIN || c[k].jumps + back <= best_jumps)
			continue;
		best = k;
		best_jumps = c[k].jumps + back;
	}
	if (best_jumps < JUMPS_MIN)
		return -1;
	*lo = c[best].lo;
	*hi = c[best].hi;
	return 0;
}
