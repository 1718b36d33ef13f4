// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-flamegraph: collapsed stacks in (any tool's: a frame's kind is
 * read from its suffix), a flame graph (SVG, user/output/svg.c) out.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "output/output.h"

#define TOOL "vmstack-flamegraph"

enum { OPT_INVERTED = CLI_LONG_ONLY };

static const struct cli_option options[] = {
	{ "output", 'o', "FILE", "write the SVG to FILE (default: standard output)" },
	{ "title", 't', "TITLE", "the graph's title (default '" VMSTACK_SVG_TITLE "')" },
	{ "inverted", OPT_INVERTED, NULL, "an icicle graph, stacks merged from the leaf: leaf\n"
	  "functions on the top row, their callers below" },
	{ NULL, 0, NULL, NULL },
};

static const struct cli flamegraph_cli = {
	.tool = TOOL,
	.usage = "[-o FILE] [--title TITLE] [--inverted] [FOLDED...]",
	.about = "Draw collapsed stacks ('a;b;c COUNT' lines, from FOLDED files or else\n"
		 "standard input) as a flame graph in SVG. In a browser, a click on a frame\n"
		 "zooms into it, 'Search' highlights the frames a regular expression\n"
		 "matches and shows their share of the samples.",
	.options = options,
	.examples = "  " TOOL " -o app.svg app.folded\n",
	.footer = "Exit status: 0 on success, 1 on a runtime error (no samples too),\n"
		  "2 on a usage error.\n",
};

struct settings {
	const char *output;
	struct vmstack_output_opts opts;
};

static int set_option(void *arg, int key, const char *val)
{
	struct settings *s = arg;

	switch (key) {
	case 'o':
		s->output = val;
		return 0;
	case 't':
		s->opts.title = val;
		return 0;
	case OPT_INVERTED:
		s->opts.inverted = 1;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct settings s = { 0 };
	struct vmstack_profile p;
	unsigned long bad = 0;
	FILE *in;
	int first, i;

	first = cli_parse(&flamegraph_cli, argc, argv, set_option, &s);
	if (first < 0)
		return 2;
	vmstack_profile_init(&p);
	for (i = first; i < argc || (i == first && first == argc); i++) {
		in = i < argc ? fopen(argv[i], "r") : stdin;
		if (!in) {
			perror(argv[i]);
			return 1;
		}
		bad += vmstack_folded_read(&p, in);
		if (in != stdin)
			fclose(in);
	}
	if (bad)
		fprintf(stderr, TOOL ": %lu lines were not 'frames COUNT'\n", bad);
	if (!p.samples) {
		fprintf(stderr, TOOL ": no samples\n");
		return 1;
	}
	if (vmstack_output_to_path(vmstack_output_find("svg"), &p, &s.opts, s.output, TOOL))
		return 1;
	vmstack_profile_free(&p);
	return 0;
}
