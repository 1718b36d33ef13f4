// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output_folded.h"
#include "util.h"

void vmstack_folded_init(struct vmstack_folded *f)
{
	memset(f, 0, sizeof(*f));
	f->nslots = 256;
	f->slots = xcalloc(f->nslots, sizeof(*f->slots));
}

static void put(struct vmstack_folded *f, char *line, uint64_t count)
{
	size_t j = hash_bytes(line, strlen(line), 0) & (f->nslots - 1);

	for (; f->slots[j].line; j = (j + 1) & (f->nslots - 1)) {
		if (!strcmp(f->slots[j].line, line)) {
			f->slots[j].count += count;
			free(line);
			return;
		}
	}
	f->slots[j].line = line;
	f->slots[j].count = count;
	f->n++;
}

static void grow(struct vmstack_folded *f)
{
	struct vmstack_folded old = *f;
	size_t i;

	f->nslots *= 2;
	f->n = 0;
	f->slots = xcalloc(f->nslots, sizeof(*f->slots));
	for (i = 0; i < old.nslots; i++)
		if (old.slots[i].line)
			put(f, old.slots[i].line, old.slots[i].count);
	free(old.slots);
}

void vmstack_folded_add(struct vmstack_folded *f, const char *const *frames,
			size_t nframes, uint64_t count)
{
	size_t i, len = 1;
	char *line, *p, *q;

	for (i = 0; i < nframes; i++)
		len += strlen(frames[i]) + 1;
	line = p = xmalloc(len);
	for (i = 0; i < nframes; i++) {
		if (i)
			*p++ = ';';
		for (q = (char *)frames[i]; *q; q++)
			/* ';' separates frames and a newline ends the line. */
			*p++ = (*q == ';' || *q == '\n') ? ':' : *q;
	}
	*p = 0;
	if (2 * (f->n + 1) > f->nslots)
		grow(f);
	put(f, line, count);
}

static int cmp_line(const void *a, const void *b)
{
	const struct vmstack_folded_line *x = a, *y = b;

	return strcmp(x->line, y->line);
}

int vmstack_folded_write(struct vmstack_folded *f, FILE *out)
{
	struct vmstack_folded_line *v = xmalloc(f->n * sizeof(*v));
	size_t i, k = 0;
	int err = 0;

	for (i = 0; i < f->nslots; i++)
		if (f->slots[i].line)
			v[k++] = f->slots[i];
	qsort(v, k, sizeof(*v), cmp_line);
	for (i = 0; i < k && !err; i++)
		if (fprintf(out, "%s %" PRIu64 "\n", v[i].line, v[i].count) < 0)
			err = -1;
	free(v);
	return err;
}

void vmstack_folded_free(struct vmstack_folded *f)
{
	size_t i;

	for (i = 0; i < f->nslots; i++)
		free(f->slots[i].line);
	free(f->slots);
	memset(f, 0, sizeof(*f));
}
