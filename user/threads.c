// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "threads.h"
#include "util.h"

void vmstack_threads_init(struct vmstack_threads *t)
{
	t->nslots = 64;
	t->n = 0;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
}

void vmstack_threads_free(struct vmstack_threads *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct vmstack_threads *t, uint32_t tid)
{
	size_t j = (tid * 2654435761u) & (t->nslots - 1);

	while (t->slots[j].tid && t->slots[j].tid != tid)
		j = (j + 1) & (t->nslots - 1);
	return j;
}

void vmstack_threads_set(struct vmstack_threads *t, uint32_t tid, const char *name)
{
	size_t j, i;

	if (!tid)
		return;
	if (2 * (t->n + 1) > t->nslots) {
		struct vmstack_thread *old = t->slots;
		size_t nold = t->nslots;

		t->nslots *= 2;
		t->slots = xcalloc(t->nslots, sizeof(*t->slots));
		for (i = 0; i < nold; i++)
			if (old[i].tid)
				t->slots[slot_of(t, old[i].tid)] = old[i];
		free(old);
	}
	j = slot_of(t, tid);
	if (!t->slots[j].tid)
		t->n++;
	t->slots[j].tid = tid;
	snprintf(t->slots[j].name, sizeof(t->slots[j].name), "%s", name);
}

void vmstack_threads_note(struct vmstack_threads *t, int pid, uint32_t tid)
{
	char path[64], name[64] = "";
	FILE *f;

	if (!tid || t->slots[slot_of(t, tid)].tid)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", pid, tid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
	}
	name[strcspn(name, "\n")] = 0;
	/* Gone already: remembered without a name, so it is not read again. */
	vmstack_threads_set(t, tid, name);
}

const char *vmstack_threads_name(const struct vmstack_threads *t, uint32_t tid)
{
	const struct vmstack_thread *th;

	if (!tid || !t || !t->slots)
		return NULL;
	th = &t->slots[slot_of(t, tid)];
	return th->tid && th->name[0] ? th->name : NULL;
}

int vmstack_threads_write(const struct vmstack_threads *t, FILE *f)
{
	size_t i;

	for (i = 0; i < t->nslots; i++)
		if (t->slots[i].tid && fprintf(f, "%u %s\n", t->slots[i].tid,
					       t->slots[i].name) < 0)
			return -1;
	return 0;
}
