// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vm_sites.h"

struct vm_site {
	struct vmstack_vm_site key;
	char *name;		/* NULL: a free slot */
};

static size_t slot(const struct vmstack_vm_sites *t, const struct vmstack_vm_site *s)
{
	size_t j = hash_bytes(s, sizeof(*s), 1) & (t->nslots - 1);

	while (t->v[j].name && memcmp(&t->v[j].key, s, sizeof(*s)))
		j = (j + 1) & (t->nslots - 1);
	return j;
}

const char *vmstack_vm_sites_get(const struct vmstack_vm_sites *t,
				 const struct vmstack_vm_site *s)
{
	return t->nslots ? t->v[slot(t, s)].name : NULL;
}

void vmstack_vm_sites_put(struct vmstack_vm_sites *t, const struct vmstack_vm_site *s,
			  const char *name)
{
	struct vm_site *old = t->v;
	size_t i, j, nold = t->nslots;

	if (2 * (t->n + 1) > t->nslots) {
		t->nslots = nold ? 2 * nold : 256;
		t->v = xcalloc(t->nslots, sizeof(*t->v));
		for (i = 0; i < nold; i++)
			if (old[i].name)
				t->v[slot(t, &old[i].key)] = old[i];
		free(old);
	}
	j = slot(t, s);
	if (t->v[j].name)
		return;
	t->v[j].key = *s;
	t->v[j].name = xstrdup(name);
	t->n++;
}

int vmstack_vm_sites_each(const struct vmstack_vm_sites *t, vmstack_vm_site_fn fn,
			  void *arg)
{
	size_t i;
	int err;

	for (i = 0; i < t->nslots; i++)
		if (t->v[i].name && (err = fn(arg, &t->v[i].key, t->v[i].name)))
			return err;
	return 0;
}

void vmstack_vm_sites_free(struct vmstack_vm_sites *t)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
