// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vm_names.h"

struct vm_name {
	uint64_t ident, pc;
	struct vmstack_name n;	/* vmstack_name_dup()'s; function NULL: a free slot */
};

static size_t slot(const struct vmstack_vm_names *t, uint64_t ident, uint64_t pc)
{
	uint64_t key[2] = { ident, pc };
	size_t j = hash_bytes(key, sizeof(key), 1) & (t->nslots - 1);

	while (t->v[j].n.function && (t->v[j].ident != ident || t->v[j].pc != pc))
		j = (j + 1) & (t->nslots - 1);
	return j;
}

const struct vmstack_name *vmstack_vm_names_get(const struct vmstack_vm_names *t,
						uint64_t ident, uint64_t pc)
{
	const struct vm_name *e = t->nslots ? &t->v[slot(t, ident, pc)] : NULL;

	return e && e->n.function ? &e->n : NULL;
}

void vmstack_vm_names_put(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
			  const struct vmstack_name *n)
{
	struct vm_name *old = t->v;
	size_t i, j, nold = t->nslots;

	if (2 * (t->n + 1) > t->nslots) {
		t->nslots = nold ? 2 * nold : 256;
		t->v = xcalloc(t->nslots, sizeof(*t->v));
		for (i = 0; i < nold; i++)
			if (old[i].n.function)
				t->v[slot(t, old[i].ident, old[i].pc)] = old[i];
		free(old);
	}
	j = slot(t, ident, pc);
	if (t->v[j].n.function)
		return;
	t->v[j].ident = ident;
	t->v[j].pc = pc;
	t->v[j].n = vmstack_name_dup(n);
	t->n++;
}

int vmstack_vm_names_each(const struct vmstack_vm_names *t, vmstack_vm_name_fn fn,
			  void *arg)
{
	size_t i;
	int err;

	for (i = 0; i < t->nslots; i++)
		if (t->v[i].n.function && (err = fn(arg, t->v[i].ident, t->v[i].pc, &t->v[i].n)))
			return err;
	return 0;
}

void vmstack_vm_names_free(struct vmstack_vm_names *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		vmstack_name_free(&t->v[i].n);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
