// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "util.h"
#include "vm_sites.h"

struct vm_site {
	struct vmstack_vm_site key;	/* the first bytes, no padding */
	char *name;
};

const char *vmstack_vm_sites_get(const struct vmstack_vm_sites *t,
				 const struct vmstack_vm_site *s)
{
	const struct vm_site *e = hash_table_get(&t->table, s, sizeof(*s), sizeof(*e));

	return e ? e->name : NULL;
}

void vmstack_vm_sites_put(struct vmstack_vm_sites *t, const struct vmstack_vm_site *s,
			  const char *name)
{
	struct vm_site *e;
	bool added;

	e = hash_table_add(&t->table, s, sizeof(*s), sizeof(*e), &added);
	if (added)
		e->name = xstrdup(name);
}

int vmstack_vm_sites_each(const struct vmstack_vm_sites *t, vmstack_vm_site_fn fn,
			  void *arg)
{
	const struct vm_site *e;
	size_t i;
	int err;

	for (i = 0; (e = hash_table_next(&t->table, &i, sizeof(*e)));)
		if ((err = fn(arg, &e->key, e->name)))
			return err;
	return 0;
}

void vmstack_vm_sites_free(struct vmstack_vm_sites *t)
{
	struct vm_site *e;
	size_t i;

	for (i = 0; (e = hash_table_next(&t->table, &i, sizeof(*e)));)
		free(e->name);
	hash_table_free(&t->table);
}
