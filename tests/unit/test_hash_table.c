// SPDX-License-Identifier: GPL-2.0
/*
 * The hash table vm_names.c and vm_sites.c keep their entries in: every
 * entry found again after the table grew past its first 256 slots, the
 * first one added for a key kept, a key not added not found, each entry
 * visited once.
 */
#include <stdint.h>
#include <string.h>

#include "hash_table.h"
#include "unit.h"

struct entry {
	uint64_t key[2];
	uint64_t value;
};

UNIT_TEST(hash_table_entries)
{
	struct hash_table t = { 0 };
	uint64_t key[2], seen = 0, sum = 0;
	const unsigned int n = 1000;
	struct entry *e;
	unsigned int i;
	bool added;
	size_t at;

	key[0] = 1;
	key[1] = 2;
	CHECK(!hash_table_get(&t, key, sizeof(key), sizeof(*e)));
	for (i = 0; i < n; i++) {
		key[0] = 0x7f0000001000ULL + 0x40 * i;
		key[1] = i % 7;
		e = hash_table_add(&t, key, sizeof(key), sizeof(*e), &added);
		CHECK(added && !memcmp(e->key, key, sizeof(key)) && !e->value);
		e->value = i + 1;
	}
	CHECK(t.n == n && t.nslots >= 2 * n);
	for (i = 0; i < n; i++) {
		key[0] = 0x7f0000001000ULL + 0x40 * i;
		key[1] = i % 7;
		e = hash_table_add(&t, key, sizeof(key), sizeof(*e), &added);
		CHECK(!added && e->value == i + 1);
		e = hash_table_get(&t, key, sizeof(key), sizeof(*e));
		CHECK(e && e->value == i + 1);
		key[1] = 7;	/* no entry has it */
		CHECK(!hash_table_get(&t, key, sizeof(key), sizeof(*e)));
	}
	CHECK(t.n == n);
	for (at = 0; (e = hash_table_next(&t, &at, sizeof(*e)));) {
		seen++;
		sum += e->value;
	}
	CHECK(seen == n && sum == (uint64_t)n * (n + 1) / 2);
	hash_table_free(&t);
	CHECK(!t.nslots && !t.n && !hash_table_get(&t, key, sizeof(key), sizeof(*e)));
}
