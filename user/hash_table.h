/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open-addressed hash table of fixed-size entries, each beginning with
 * its key, hashed and compared as bytes (so a key struct has no padding):
 * linear probing, the table doubled when it would be more than half full,
 * never shrunk, no removal. Its users (vm_names.c, vm_sites.c) wrap it in
 * typed functions and pass their entry's and key's sizes to each call, so
 * that a zeroed struct hash_table is an empty one. Entries move when the
 * table grows: a pointer to one lasts until the next add.
 *
 * The lookup is inline: with the sizes constants at each call, the key's
 * comparison is a few loads, as in a table of one type (vm_names' lookup
 * is on the naming path of every VM frame).
 */
#ifndef VMSTACK_HASH_TABLE_H
#define VMSTACK_HASH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

struct hash_table {
	unsigned char *v;	/* nslots entries */
	bool *used;		/* per slot: whether it holds an entry */
	size_t nslots, n;
};

/* The slot of @key in @t (nslots > 0): its entry's, or the free one it would take. */
static inline size_t hash_table_slot(const struct hash_table *t, const void *key,
				     size_t key_size, size_t entry_size)
{
	size_t j = hash_bytes(key, key_size, 1) & (t->nslots - 1);

	while (t->used[j] && memcmp(t->v + j * entry_size, key, key_size))
		j = (j + 1) & (t->nslots - 1);
	return j;
}

/* The entry whose first @key_size bytes are @key's, or NULL. */
static inline void *hash_table_get(const struct hash_table *t, const void *key,
				   size_t key_size, size_t entry_size)
{
	size_t j;

	if (!t->nslots)
		return NULL;
	j = hash_table_slot(t, key, key_size, entry_size);
	return t->used[j] ? t->v + j * entry_size : NULL;
}

/*
 * The entry of @key: the one there is (*@added false), or a new one, its
 * key copied in and the rest zeroed, for the caller to fill (*@added true).
 */
void *hash_table_add(struct hash_table *t, const void *key, size_t key_size,
		     size_t entry_size, bool *added);
/*
 * The entries in slot order, from *@i (0 to start); NULL after the last.
 * for (i = 0; (e = hash_table_next(t, &i, sizeof(*e)));) visits each.
 */
void *hash_table_next(const struct hash_table *t, size_t *i, size_t entry_size);
/* The table's own memory: what its entries point to is the caller's. */
void hash_table_free(struct hash_table *t);

#endif
