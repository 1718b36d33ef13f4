// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "hash_table.h"
#include "util.h"

void *hash_table_add(struct hash_table *t, const void *key, size_t key_size,
		     size_t entry_size, bool *added)
{
	unsigned char *old = t->v;
	bool *old_used = t->used;
	size_t i, j, nold = t->nslots;

	if (2 * (t->n + 1) > t->nslots) {
		t->nslots = nold ? 2 * nold : 256;
		t->v = xcalloc(t->nslots, entry_size);
		t->used = xcalloc(t->nslots, sizeof(*t->used));
		for (i = 0; i < nold; i++) {
			if (!old_used[i])
				continue;
			j = hash_table_slot(t, old + i * entry_size, key_size, entry_size);
			memcpy(t->v + j * entry_size, old + i * entry_size, entry_size);
			t->used[j] = true;
		}
		free(old);
		free(old_used);
	}
	j = hash_table_slot(t, key, key_size, entry_size);
	*added = !t->used[j];
	if (*added) {
		memcpy(t->v + j * entry_size, key, key_size);
		t->used[j] = true;
		t->n++;
	}
	return t->v + j * entry_size;
}

void *hash_table_next(const struct hash_table *t, size_t *i, size_t entry_size)
{
	for (; *i < t->nslots; ++*i)
		if (t->used[*i])
			return t->v + (*i)++ * entry_size;
	return NULL;
}

void hash_table_free(struct hash_table *t)
{
	free(t->v);
	free(t->used);
	memset(t, 0, sizeof(*t));
}
