// SPDX-License-Identifier: GPL-2.0
#include "vm_names.h"

struct vm_name {
	uint64_t ident, pc;	/* the key: the first bytes, no padding */
	struct vmstack_name n;	/* vmstack_name_dup()'s */
};

const struct vmstack_name *vmstack_vm_names_get(const struct vmstack_vm_names *t,
						uint64_t ident, uint64_t pc)
{
	uint64_t key[2] = { ident, pc };
	const struct vm_name *e = hash_table_get(&t->table, key, sizeof(key), sizeof(*e));

	return e ? &e->n : NULL;
}

void vmstack_vm_names_put(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
			  const struct vmstack_name *n)
{
	uint64_t key[2] = { ident, pc };
	struct vm_name *e;
	bool added;

	e = hash_table_add(&t->table, key, sizeof(key), sizeof(*e), &added);
	if (added)
		e->n = vmstack_name_dup(n);
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
