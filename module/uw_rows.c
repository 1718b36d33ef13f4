// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind rows: the check a table passes before it is published, and the
 * lookup the sample handler makes. Pure code (walk.h).
 */
#include "walk.h"

const char *vmstack_uw_rows_check(const struct vmstack_uw_table *t)
{
	const struct vmstack_uw_row *r;
	u64 span = t->span;
	u32 i;

	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if ((i && r->start <= t->rows[i - 1].start) || r->start >= span)
			return "unwind rows not sorted or past the mapping";
		if (r->cfa >= __VMSTACK_UW_MAX || r->rbp > VMSTACK_UW_RBP_SAVED)
			return "unknown unwind rule kind";
		/* A CFA below the stack pointer cannot be a caller's frame. */
		if (r->cfa == VMSTACK_UW_CFA_RSP && r->cfa_off < 8)
			return "unwind rule with CFA below rsp + 8";
	}
	return NULL;
}

/*
 * How many of the @n entries of @arr, sorted by their .start, start at
 * or below @key (a binary search): the last such entry is the one before.
 * The places of a set and the rows of a table are searched alike.
 */
#define vmstack_nr_at_or_below(arr, n, key) ({				\
	u32 __lo = 0, __hi = (n);					\
									\
	while (__lo < __hi) {						\
		u32 __mid = __lo + (__hi - __lo) / 2;			\
									\
		if ((arr)[__mid].start <= (key))			\
			__lo = __mid + 1;				\
		else							\
			__hi = __mid;					\
	}								\
	__lo;								\
})

const struct vmstack_uw_row *vmstack_uw_lookup(const struct vmstack_uw_set *set,
					       unsigned long pc)
{
	const struct vmstack_uw_table *t;
	u32 lo, off;

	if (!set)
		return NULL;
	lo = vmstack_nr_at_or_below(set->maps, set->nr, pc);
	if (!lo || pc >= set->maps[lo - 1].end)
		return NULL;
	t = set->maps[lo - 1].t;
	/* A place is never longer than its table's span (unwind_table.c). */
	off = pc - set->maps[lo - 1].start;
	lo = vmstack_nr_at_or_below(t->rows, t->nrows, off);
	return lo ? &t->rows[lo - 1] : NULL;
}

const struct vmstack_uw_row *vmstack_uw_lookup_cached(const struct vmstack_uw_set *set,
						      struct vmstack_uw_cache *cache,
						      unsigned long pc, bool *hit)
{
	struct vmstack_uw_cache_entry *e;

	*hit = false;
	if (!set || !cache)
		return vmstack_uw_lookup(set, pc);
	/* Code addresses: the low bits vary most between nearby calls. */
	e = &cache->e[(pc ^ (pc >> 6)) & (VMSTACK_UW_CACHE - 1)];
	if (e->gen == set->gen && e->pc == pc) {
		*hit = true;
		return e->row;
	}
	e->row = vmstack_uw_lookup(set, pc);
	e->pc = pc;
	e->gen = set->gen;
	return e->row;
}
