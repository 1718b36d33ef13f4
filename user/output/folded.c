// SPDX-License-Identifier: GPL-2.0
/*
 * Collapsed ("folded") stacks, Brendan Gregg's format: one line per
 * distinct stack, frames root first separated by ';', a space and the
 * count. A frame's kind is a suffix of its name (vmstack_kind_styles).
 * Lines are sorted, so the same profile always gives the same file, and
 * lines that read the same (two addresses in one function) are merged.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

struct line {
	char *text;
	uint64_t count;
};

struct lines {
	struct line *slots;
	size_t nslots, n;
};

static void put(struct lines *t, char *text, uint64_t count)
{
	size_t j = hash_bytes(text, strlen(text), 0) & (t->nslots - 1);

	for (; t->slots[j].text; j = (j + 1) & (t->nslots - 1)) {
		if (!strcmp(t->slots[j].text, text)) {
			t->slots[j].count += count;
			free(text);
			return;
		}
	}
	t->slots[j].text = text;
	t->slots[j].count = count;
	t->n++;
}

static void add(struct lines *t, char *text, uint64_t count)
{
	if (2 * (t->n + 1) > t->nslots) {
		struct lines old = *t;
		size_t i;

		t->nslots = old.nslots ? 2 * old.nslots : 256;
		t->n = 0;
		t->slots = xcalloc(t->nslots, sizeof(*t->slots));
		for (i = 0; i < old.nslots; i++)
			if (old.slots[i].text)
				put(t, old.slots[i].text, old.slots[i].count);
		free(old.slots);
	}
	put(t, text, count);
}

/* The line of stack @s: frames' texts with their kinds' suffixes. */
static char *line_of(const struct vmstack_profile *p, const struct vmstack_pstack *s)
{
	size_t len = 1, i, n;
	char *text, *o, *q;

	for (i = 0; i < s->n; i++) {
		const struct vmstack_pframe *f = &p->frames[s->frames[i]];

		len += vmstack_pframe_text(f, NULL, 0) + strlen(vmstack_kind_styles[f->kind].suffix) + 1;
	}
	text = o = xmalloc(len);
	for (i = 0; i < s->n; i++) {
		const struct vmstack_pframe *f = &p->frames[s->frames[i]];

		if (i)
			*o++ = ';';
		n = vmstack_pframe_text(f, o, len - (size_t)(o - text));
		for (q = o; q < o + n; q++)
			/* ';' separates frames and a newline ends the line. */
			if (*q == ';' || *q == '\n')
				*q = ':';
		o = stpcpy(o + n, vmstack_kind_styles[f->kind].suffix);
	}
	*o = 0;
	return text;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return strcmp(x->text, y->text);
}

static int folded_write(const struct vmstack_profile *p,
			const struct vmstack_output_opts *o, FILE *out)
{
	struct lines t = { 0 };
	struct line *v;
	size_t i, k = 0;
	int err = 0;

	(void)o;
	for (i = 0; i < p->nslots; i++)
		if (p->slots[i])
			add(&t, line_of(p, p->slots[i]), p->slots[i]->count);
	v = xmalloc((t.n ? t.n : 1) * sizeof(*v));
	for (i = 0; i < t.nslots; i++)
		if (t.slots[i].text)
			v[k++] = t.slots[i];
	qsort(v, k, sizeof(*v), cmp_line);
	for (i = 0; i < k; i++) {
		if (!err && fprintf(out, "%s %" PRIu64 "\n", v[i].text, v[i].count) < 0)
			err = -1;
		free(v[i].text);
	}
	free(v);
	free(t.slots);
	return err;
}

const struct vmstack_output vmstack_output_folded = {
	.name = "folded",
	.suffix = ".folded",
	.help = "collapsed stacks, one 'root;...;leaf COUNT' line per stack",
	.write = folded_write,
};

/* The kind a frame's suffix gives (the longest that matches), cut off. */
static enum vmstack_frame_kind kind_of(char *name, size_t len, int root)
{
	enum vmstack_frame_kind k, best = root ? VMSTACK_FRAME_ROOT : VMSTACK_FRAME_NATIVE;
	size_t best_len = 0, sl;

	for (k = 0; k < VMSTACK_NR_FRAME_KINDS; k++) {
		sl = strlen(vmstack_kind_styles[k].suffix);
		if (sl > best_len && len > sl &&
		    !memcmp(name + len - sl, vmstack_kind_styles[k].suffix, sl)) {
			best = k;
			best_len = sl;
		}
	}
	name[len - best_len] = 0;
	return best;
}

/* One line "a;b;c COUNT" into @p; -1 if it is not one. */
static int read_line(struct vmstack_profile *p, char *line, uint32_t **ids,
		     size_t *cap)
{
	char *sp = strrchr(line, ' '), *f, *end;
	enum vmstack_frame_kind k;
	uint64_t count;
	uint32_t n = 0;
	size_t len;
	int last;

	if (!sp)
		return -1;
	count = strtoull(sp + 1, &end, 10);
	if (end == sp + 1 || (*end && *end != '\n'))
		return -1;
	*sp = 0;
	for (f = line, last = !*f; !last; f += len + 1) {
		len = strcspn(f, ";");
		last = !f[len];
		f[len] = 0;
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*ids = xrealloc(*ids, *cap * sizeof(**ids));
		}
		k = kind_of(f, len, n == 0);
		(*ids)[n++] = vmstack_profile_frame(p, f, k);
	}
	if (n)
		vmstack_profile_add(p, *ids, n, 0, 0, count);
	return 0;
}

unsigned long vmstack_folded_read(struct vmstack_profile *p, FILE *in)
{
	unsigned long bad = 0;
	uint32_t *ids = NULL;
	size_t cap = 0, lcap = 0;
	char *line = NULL;

	while (getline(&line, &lcap, in) > 0)
		if (line[0] != '\n' && read_line(p, line, &ids, &cap))
			bad++;
	free(line);
	free(ids);
	return bad;
}
