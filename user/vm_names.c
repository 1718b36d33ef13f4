// SPDX-License-Identifier: GPL-2.0
#include <time.h>

#include "vm_names.h"

/*
 * A failed read is tried again this many times in all, each at least this
 * long after the one before: a drain of the rings names a batch of samples
 * within microseconds, and an object between lives stays so for a while.
 */
#define VM_NAME_TRIES		8
#define VM_NAME_RETRY_MS	20

struct vm_name {
	uint64_t ident, pc;	/* the key: the first bytes, no padding */
	struct vmstack_name n;	/* vmstack_name_dup()'s */
	unsigned int misses;	/* 0: a name; else failed reads, n a stand-in */
	uint64_t missed_ms;	/* when the last of them was */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const struct vmstack_name *vmstack_vm_names_get(const struct vmstack_vm_names *t,
						uint64_t ident, uint64_t pc)
{
	uint64_t key[2] = { ident, pc };
	const struct vm_name *e = hash_table_get(&t->table, key, sizeof(key), sizeof(*e));

	return e ? &e->n : NULL;
}

/*
 * The entry of @ident at @pc: a new one holding a copy of @n (*@added), or
 * one holding a stand-in; NULL if it holds a name, which stays.
 */
static struct vm_name *open_entry(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
				  const struct vmstack_name *n, bool *added)
{
	uint64_t key[2] = { ident, pc };
	struct vm_name *e;

	e = hash_table_add(&t->table, key, sizeof(key), sizeof(*e), added);
	if (*added)
		e->n = vmstack_name_dup(n);
	return *added || e->misses ? e : NULL;
}

void vmstack_vm_names_put(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
			  const struct vmstack_name *n)
{
	bool added;
	struct vm_name *e = open_entry(t, ident, pc, n, &added);

	if (!e || added)
		return;
	vmstack_name_free(&e->n);
	e->n = vmstack_name_dup(n);
	e->misses = 0;
}

void vmstack_vm_names_put_stand_in(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
				   const struct vmstack_name *n)
{
	bool added;
	struct vm_name *e = open_entry(t, ident, pc, n, &added);

	if (!e)
		return;
	e->misses++;
	e->missed_ms = now_ms();
}

bool vmstack_vm_names_wanted(const struct vmstack_vm_names *t, uint64_t ident, uint64_t pc)
{
	uint64_t key[2] = { ident, pc };
	const struct vm_name *e = hash_table_get(&t->table, key, sizeof(key), sizeof(*e));

	if (!e)
		return true;
	return e->misses && e->misses < VM_NAME_TRIES &&
	       now_ms() - e->missed_ms >= VM_NAME_RETRY_MS;
}

int vmstack_vm_names_each(const struct vmstack_vm_names *t, vmstack_vm_name_fn fn,
			  void *arg)
{
	const struct vm_name *e;
	size_t i;
	int err;

	for (i = 0; (e = hash_table_next(&t->table, &i, sizeof(*e)));)
		if ((err = fn(arg, e->ident, e->pc, &e->n)))
			return err;
	return 0;
}

void vmstack_vm_names_free(struct vmstack_vm_names *t)
{
	struct vm_name *e;
	size_t i;

	for (i = 0; (e = hash_table_next(&t->table, &i, sizeof(*e)));)
		vmstack_name_free(&e->n);
	hash_table_free(&t->table);
}
