// SPDX-License-Identifier: GPL-2.0
/*
 * A flame graph in SVG: stacks merged by prefix, each box as wide as its
 * share of the samples, root at the bottom, siblings in name order (as
 * flamegraph.pl draws them). Colours by kind: native frames warm, kernel
 * frames blue, VM frames and the code VMs compiled green. Hovering shows
 * a frame's name, count and share.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

#define WIDTH 1200.0
#define ROW 16
#define PAD 30
#define MIN_BOX 0.1		/* pixels: narrower boxes are not drawn */

struct node {
	uint32_t frame;
	uint64_t count;
	struct node *child, *next;	/* first child, next sibling */
};

static struct node *child_of(struct node *n, uint32_t frame)
{
	struct node *c;

	for (c = n->child; c; c = c->next)
		if (c->frame == frame)
			return c;
	c = xcalloc(1, sizeof(*c));
	c->frame = frame;
	c->next = n->child;
	n->child = c;
	return c;
}

static int depth_of(const struct node *n)
{
	const struct node *c;
	int d = 0, cd;

	for (c = n->child; c; c = c->next) {
		cd = depth_of(c);
		if (cd > d)
			d = cd;
	}
	return d + 1;
}

static void free_tree(struct node *n)
{
	struct node *c, *next;

	for (c = n->child; c; c = next) {
		next = c->next;
		free_tree(c);
		free(c);
	}
}

static void xml_text(FILE *f, const char *s, size_t max)
{
	for (; *s && max; s++, max--) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

/* A frame's text: its name and its kind's suffix, as in collapsed stacks. */
static void frame_text(const struct vmstack_profile *p, uint32_t id, char *buf,
		       size_t len)
{
	const struct vmstack_pframe *f = &p->frames[id];

	snprintf(buf, len, "%s%s", f->name, vmstack_kind_styles[f->kind].suffix);
}

static void colour(const char *text, enum vmstack_kind_class class, char *buf,
		   size_t len)
{
	unsigned h = (unsigned)hash_bytes(text, strlen(text), 7);

	switch (class) {
	case VMSTACK_CLASS_KERNEL:
		snprintf(buf, len, "rgb(%u,%u,%u)", 110 + h % 40, 160 + h % 40, 230);
		break;
	case VMSTACK_CLASS_VM:
	case VMSTACK_CLASS_JIT:
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + h % 40, 180 + h % 50, 70 + h % 40);
		break;
	default:
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 35, 80 + h % 110, 50 + h % 30);
	}
}

struct draw {
	const struct vmstack_profile *p;
	FILE *out;
	int height;
	double scale;
	uint64_t total;
};

static int cmp_text(const void *a, const void *b, void *arg)
{
	const struct vmstack_profile *p = arg;
	char x[512], y[512];

	frame_text(p, (*(struct node *const *)a)->frame, x, sizeof(x));
	frame_text(p, (*(struct node *const *)b)->frame, y, sizeof(y));
	return strcmp(x, y);
}

static void draw(const struct draw *d, const struct node *n, double x, int level)
{
	double w = n->count * d->scale, y = PAD + (d->height - level - 1) * ROW;
	struct node **kids;
	const struct node *c;
	size_t nk = 0, i;
	char text[512], fill[32];

	if (w < MIN_BOX)
		return;
	if (level >= 0) {
		frame_text(d->p, n->frame, text, sizeof(text));
		colour(text, vmstack_kind_styles[d->p->frames[n->frame].kind].class,
		       fill, sizeof(fill));
		fprintf(d->out, "<g><title>");
		xml_text(d->out, text, (size_t)-1);
		fprintf(d->out, " (%llu samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
			(unsigned long long)n->count, 100.0 * n->count / d->total,
			x + 10, y, w, ROW - 1, fill);
		/* About 7 px per character at this size. */
		if (w > 21) {
			fprintf(d->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 13, y + ROW - 4);
			xml_text(d->out, text, (size_t)((w - 6) / 7));
			fprintf(d->out, "</text>");
		}
		fprintf(d->out, "</g>\n");
	}
	for (c = n->child; c; c = c->next)
		nk++;
	kids = xmalloc((nk ? nk : 1) * sizeof(*kids));
	for (c = n->child, i = 0; c; c = c->next)
		kids[i++] = (struct node *)c;
	qsort_r(kids, nk, sizeof(*kids), cmp_text, (void *)d->p);
	for (i = 0; i < nk; i++) {
		draw(d, kids[i], x, level + 1);
		x += kids[i]->count * d->scale;
	}
	free(kids);
}

int vmstack_svg_write(const struct vmstack_profile *p,
		      const struct vmstack_output_opts *o, FILE *out)
{
	struct node root = { 0 };
	struct draw d = { .p = p, .out = out };
	size_t i;
	uint32_t k;

	for (i = 0; i < p->nslots; i++) {
		const struct vmstack_pstack *s = p->slots[i];
		struct node *n = &root;

		if (!s)
			continue;
		root.count += s->count;
		for (k = 0; k < s->n; k++) {
			n = child_of(n, s->frames[k]);
			n->count += s->count;
		}
	}
	d.height = depth_of(&root) - 1;
	d.total = root.count;
	d.scale = root.count ? WIDTH / root.count : 0;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\" font-size=\"16\">",
		WIDTH + 20, d.height * ROW + PAD + 20, (WIDTH + 20) / 2);
	xml_text(out, o && o->title ? o->title : VMSTACK_SVG_TITLE, (size_t)-1);
	fprintf(out, " (%llu samples; green: VM frames, blue: kernel)</text>\n",
		(unsigned long long)root.count);
	if (root.count)
		draw(&d, &root, 0, -1);
	fprintf(out, "</svg>\n");
	free_tree(&root);
	return ferror(out) ? -1 : 0;
}
