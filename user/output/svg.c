// SPDX-License-Identifier: GPL-2.0
/*
 * A flame graph in SVG: stacks merged by prefix, each box as wide as its
 * share of the samples, root at the bottom, siblings in name order (as
 * flamegraph.pl draws them); inverted, stacks merged from the leaf and
 * drawn top down (an icicle: leaf functions on the top row, their callers
 * below). Colours by kind class, with a legend: native frames warm, kernel
 * frames blue, VM frames green, code a VM compiled teal.
 *
 * The boxes are drawn at full view, so the file is a picture without its
 * script too; the script (flamegraph.js, embedded at build time) zooms,
 * searches and shows details. It moves boxes by their data attributes,
 * in samples, never by parsing what is drawn.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

#define WIDTH 1200.0
#define PAD 10			/* left and right of the boxes */
#define ROW 16
#define TOP 70			/* rows of title and controls, totals, legend */
#define BOTTOM 30		/* the details line below */
#define CHAR_PX 7		/* about a character's width at 12 px */
#define MIN_BOX 0.1		/* pixels: narrower boxes are not drawn */

/* flamegraph.js as bytes, made by the Makefile (xxd -i). */
static const unsigned char script[] = {
#include "flamegraph.js.inc"
};

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

/*
 * A box's label at @x, @y: as much of @text as fits @w pixels, ".." for
 * the rest. None under three characters, not even an empty <text>: most
 * boxes of a big profile are that narrow (flamegraph.js adds one when a
 * zoom widens them, and labels zoomed boxes the same way).
 */
static void label(FILE *f, const char *text, double x, double y, double w)
{
	size_t fit = (size_t)((w - 6) / CHAR_PX);

	if (w <= 3 * CHAR_PX)
		return;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x, y);
	if (strlen(text) <= fit) {
		xml_text(f, text, fit);
	} else {
		xml_text(f, text, fit - 2);
		fputs("..", f);
	}
	fputs("</text>", f);
}

/* A frame's text and its kind's suffix, as in collapsed stacks. */
static void frame_text(const struct vmstack_profile *p, uint32_t id, char *buf,
		       size_t len)
{
	const struct vmstack_pframe *f = &p->frames[id];
	size_t n = vmstack_pframe_text(f, buf, len);

	if (n < len)
		snprintf(buf + n, len - n, "%s", vmstack_kind_styles[f->kind].suffix);
}

/* A fill of @class, varied by @h so that neighbours differ. */
static void colour(enum vmstack_kind_class class, unsigned int h, char *buf, size_t len)
{
	switch (class) {
	case VMSTACK_CLASS_KERNEL:
		snprintf(buf, len, "rgb(%u,%u,%u)", 110 + h % 40, 160 + h % 40, 230);
		break;
	case VMSTACK_CLASS_VM:
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + h % 40, 180 + h % 50, 70 + h % 40);
		break;
	case VMSTACK_CLASS_JIT:
		snprintf(buf, len, "rgb(%u,%u,%u)", h % 40, 170 + h % 40, 170 + h % 40);
		break;
	default:
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 35, 80 + h % 110, 50 + h % 30);
	}
}

struct draw {
	const struct vmstack_profile *p;
	FILE *out;
	int rows, inverted;
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

/*
 * @n and its subtree, @n's first sample column @first at depth @level
 * (-1: the tree's root, not drawn). data-x, data-n and data-d are the
 * box in samples and rows: all flamegraph.js needs to move it.
 */
static void draw(const struct draw *d, const struct node *n, uint64_t first, int level)
{
	double x = first * d->scale, w = n->count * d->scale, y;
	struct node **kids;
	const struct node *c;
	size_t nk = 0, i;
	char text[512], fill[32];

	if (w < MIN_BOX)
		return;
	if (level >= 0) {
		y = TOP + (d->inverted ? level : d->rows - level - 1) * ROW;
		frame_text(d->p, n->frame, text, sizeof(text));
		colour(vmstack_kind_styles[d->p->frames[n->frame].kind].class,
		       (unsigned int)hash_bytes(text, strlen(text), 7), fill, sizeof(fill));
		fprintf(d->out, "<g class=\"f\" data-x=\"%llu\" data-n=\"%llu\" data-d=\"%d\" data-name=\"",
			(unsigned long long)first, (unsigned long long)n->count, level);
		xml_text(d->out, text, (size_t)-1);
		fprintf(d->out, "\"><title>");
		xml_text(d->out, text, (size_t)-1);
		fprintf(d->out, " (%llu %s, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
			(unsigned long long)n->count,
			d->p->off_cpu ? "us off CPU" : d->p->wall ? "us" : "samples",
			100.0 * n->count / d->total,
			x + PAD, y, w, ROW - 1, fill);
		/* The baseline 3 px above the box's bottom, as flamegraph.js puts it. */
		label(d->out, text, x + PAD + 3, y + ROW - 4, w);
		fprintf(d->out, "</g>\n");
	}
	for (c = n->child; c; c = c->next)
		nk++;
	kids = xmalloc((nk ? nk : 1) * sizeof(*kids));
	for (c = n->child, i = 0; c; c = c->next)
		kids[i++] = (struct node *)c;
	qsort_r(kids, nk, sizeof(*kids), cmp_text, (void *)d->p);
	for (i = 0; i < nk; i++) {
		draw(d, kids[i], first, level + 1);
		first += kids[i]->count;
	}
	free(kids);
}

/* The colours' legend, one sample box per kind class. */
static void legend(FILE *out)
{
	static const char *const names[] = {
		[VMSTACK_CLASS_NATIVE] = "native",
		[VMSTACK_CLASS_KERNEL] = "kernel",
		[VMSTACK_CLASS_VM] = "VM",
		[VMSTACK_CLASS_JIT] = "JIT (code a VM compiled)",
	};
	char fill[32];
	size_t i;

	fprintf(out, "<g id=\"legend\">");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		colour((enum vmstack_kind_class)i, 20, fill, sizeof(fill));
		fprintf(out, "<rect x=\"%zu\" y=\"48\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%zu\" y=\"59\">%s</text>",
			PAD + i * 80, fill, PAD + i * 80 + 16, names[i]);
	}
	fprintf(out, "</g>\n");
}

/* Under the title: samples, and what the recording says of itself. */
static void totals(FILE *out, const struct vmstack_profile *p, uint64_t samples,
		   int inverted)
{
	fprintf(out, "<text id=\"totals\" x=\"%.0f\" y=\"40\" text-anchor=\"middle\">",
		(WIDTH + 2 * PAD) / 2);
	/* Off CPU, widths are time waited (a count is microseconds). */
	if (p->off_cpu)
		fprintf(out, "off-CPU time: where threads waited, %.3f s", samples / 1e6);
	else if (p->wall)
		fprintf(out, "wall-clock time: where threads ran or waited, %.3f s",
			samples / 1e6);
	else
		fprintf(out, "%llu samples", (unsigned long long)samples);
	if (p->lost)
		fprintf(out, p->off_cpu ? ", %llu switch-outs lost" :
			     p->wall ? ", %llu samples and switch-outs lost" : ", %llu lost",
			(unsigned long long)p->lost);
	if (p->duration_ns)
		fprintf(out, p->off_cpu || p->wall ? " in %.2f s recorded" : ", %.2f s",
			p->duration_ns / 1e9);
	if (inverted)
		fprintf(out, "; inverted: leaf functions on top, callers below");
	fprintf(out, "</text>\n");
}

static int svg_write(const struct vmstack_profile *p,
		     const struct vmstack_output_opts *o, FILE *out)
{
	const char *title = o && o->title ? o->title :
			    p->off_cpu ? "vmstack off-CPU flame graph" :
			    p->wall ? "vmstack wall-clock flame graph" : VMSTACK_SVG_TITLE;
	struct node root = { 0 };
	struct draw d = { .p = p, .out = out, .inverted = o && o->inverted };
	size_t i;
	uint32_t k;
	int height;

	for (i = 0; i < p->nslots; i++) {
		const struct vmstack_pstack *s = p->slots[i];
		struct node *n = &root;

		if (!s)
			continue;
		root.count += s->count;
		for (k = 0; k < s->n; k++) {
			n = child_of(n, s->frames[d.inverted ? s->n - 1 - k : k]);
			n->count += s->count;
		}
	}
	d.rows = depth_of(&root) - 1;
	d.total = root.count;
	d.scale = root.count ? WIDTH / root.count : 0;
	height = TOP + d.rows * ROW + BOTTOM;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" font-size=\"12\">\n"
		"<title>",
		WIDTH + 2 * PAD, height, WIDTH + 2 * PAD, height);
	xml_text(out, title, (size_t)-1);
	fprintf(out, "</title>\n<style>.ctl{cursor:pointer;fill:#2050b0}.f{cursor:pointer}"
		".f:hover rect{stroke:#000}.hide{display:none}.anc{opacity:.5}"
		".hit rect{fill:#e040e0}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"16\">",
		(WIDTH + 2 * PAD) / 2);
	xml_text(out, title, (size_t)-1);
	fprintf(out, "</text>\n");
	totals(out, p, root.count, d.inverted);
	legend(out);
	fprintf(out, "<text id=\"reset\" class=\"ctl hide\" x=\"%d\" y=\"22\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%.0f\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%d\" text-anchor=\"end\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<g id=\"frames\" data-total=\"%llu\" data-width=\"%.0f\" data-pad=\"%d\" data-char=\"%d\">\n",
		PAD, WIDTH + PAD, WIDTH + PAD, height - 10, PAD, height - 10,
		(unsigned long long)root.count, WIDTH, PAD, CHAR_PX);
	if (root.count)
		draw(&d, &root, 0, -1);
	fprintf(out, "</g>\n<script><![CDATA[\n");
	fwrite(script, 1, sizeof(script), out);
	fprintf(out, "]]></script>\n</svg>\n");
	free_tree(&root);
	return ferror(out) ? -1 : 0;
}

const struct vmstack_output vmstack_output_svg = {
	.name = "svg",
	.suffix = ".svg",
	.help = "a flame graph picture",
	.write = svg_write,
	/* Only a drawing merges stacks; folded stacks and pprof keep each whole. */
	.inverted = true,
};
