// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-flamegraph: collapsed stacks in, a flame graph picture (SVG)
 * out. Frames are merged by prefix; each box's width is its share of the
 * samples, root at the bottom. Colours: native frames warm, kernel frames
 * (_[k]) blue, VM frames (_[vm], compiled code _[j]) green. Hovering shows name and count.
 * Usage: vmstack-flamegraph [-o OUT.svg] [--title T] [FOLDED...]
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define TOOL "vmstack-flamegraph"
#define WIDTH 1200.0
#define ROW 16
#define PAD 30
#define MIN_BOX 0.1		/* pixels: narrower boxes are not drawn */

struct node {
	char *name;
	uint64_t count;
	struct node *child, *next;	/* first child, next sibling */
};

static struct node *child_of(struct node *n, const char *name, size_t len)
{
	struct node *c;

	for (c = n->child; c; c = c->next)
		if (strlen(c->name) == len && !strncmp(c->name, name, len))
			return c;
	c = xcalloc(1, sizeof(*c));
	c->name = xmalloc(len + 1);
	memcpy(c->name, name, len);
	c->name[len] = 0;
	c->next = n->child;
	n->child = c;
	return c;
}

/* One folded line: "a;b;c COUNT". */
static int add_line(struct node *root, char *line)
{
	char *sp = strrchr(line, ' '), *p, *end;
	uint64_t count;
	struct node *n = root;

	if (!sp)
		return -1;
	count = strtoull(sp + 1, &end, 10);
	if (end == sp + 1 || (*end && *end != '\n'))
		return -1;
	*sp = 0;
	root->count += count;
	for (p = line; *p; p = end + (*end == ';')) {
		end = p + strcspn(p, ";");
		n = child_of(n, p, (size_t)(end - p));
		n->count += count;
	}
	return 0;
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

static void colour(const char *name, char *buf, size_t len)
{
	unsigned h = (unsigned)hash_bytes(name, strlen(name), 7);
	size_t l = strlen(name);

	if (l > 4 && !strcmp(name + l - 4, "_[k]"))
		snprintf(buf, len, "rgb(%u,%u,%u)", 110 + h % 40, 160 + h % 40, 230);
	else if ((l > 5 && !strcmp(name + l - 5, "_[vm]")) ||
		 (l > 4 && !strcmp(name + l - 4, "_[j]")))
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + h % 40, 180 + h % 50, 70 + h % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 220 + h % 35, 80 + h % 110, 50 + h % 30);
}

static void draw(FILE *f, const struct node *n, double x, int level, int height,
		 double scale, uint64_t total)
{
	const struct node *c;
	double w = n->count * scale, y = PAD + (height - level - 1) * ROW;
	char fill[32];

	if (w < MIN_BOX)
		return;
	if (level >= 0) {
		colour(n->name, fill, sizeof(fill));
		fprintf(f, "<g><title>");
		xml_text(f, n->name, (size_t)-1);
		fprintf(f, " (%llu samples, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>",
			(unsigned long long)n->count, 100.0 * n->count / total, x + 10, y,
			w, ROW - 1, fill);
		/* About 7 px per character at this size. */
		if (w > 21) {
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 13, y + ROW - 4);
			xml_text(f, n->name, (size_t)((w - 6) / 7));
			fprintf(f, "</text>");
		}
		fprintf(f, "</g>\n");
	}
	for (c = n->child; c; c = c->next) {
		draw(f, c, x, level + 1, height, scale, total);
		x += c->count * scale;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *output = NULL, *title = "vmstack flame graph";
	struct node root = { .name = "all" };
	char *line = NULL;
	size_t cap = 0;
	FILE *in, *out = stdout;
	int c, i, height, bad = 0;

	while ((c = getopt_long(argc, argv, "o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 't': title = optarg; break;
		case 'h':
			printf("usage: " TOOL " [-o OUT.svg] [--title T] [FOLDED...]\n"
			       "Draw collapsed stacks ('a;b;c COUNT' lines; standard input\n"
			       "if no file) as a flame graph in SVG.\n");
			return 0;
		default:
			return 2;
		}
	}
	for (i = optind; i < argc || (i == optind && optind == argc); i++) {
		in = i < argc ? fopen(argv[i], "r") : stdin;
		if (!in) {
			perror(argv[i]);
			return 1;
		}
		while (getline(&line, &cap, in) > 0)
			if (line[0] != '\n' && add_line(&root, line))
				bad++;
		if (in != stdin)
			fclose(in);
	}
	free(line);
	if (bad)
		fprintf(stderr, TOOL ": %d lines were not 'frames COUNT'\n", bad);
	if (!root.count) {
		fprintf(stderr, TOOL ": no samples\n");
		return 1;
	}
	if (output && !(out = fopen(output, "w"))) {
		perror(output);
		return 1;
	}
	height = depth_of(&root) - 1;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\" font-size=\"16\">",
		WIDTH + 20, height * ROW + PAD + 20, (WIDTH + 20) / 2);
	xml_text(out, title, (size_t)-1);
	fprintf(out, " (%llu samples; green: VM frames, blue: kernel)</text>\n",
		(unsigned long long)root.count);
	draw(out, &root, 0, -1, height, WIDTH / root.count, root.count);
	fprintf(out, "</svg>\n");
	if (out != stdout && fclose(out)) {
		perror(output);
		return 1;
	}
	return 0;
}
