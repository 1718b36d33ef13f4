// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-flamegraph: collapsed stacks in (any tool's: a frame's kind is
 * read from its suffix), a flame graph (SVG, user/output/svg.c) out.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"

#define TOOL "vmstack-flamegraph"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct vmstack_output_opts opts = { .title = "vmstack flame graph" };
	const char *output = NULL;
	struct vmstack_profile p;
	unsigned long bad = 0;
	FILE *in, *out = stdout;
	int c, i, err;

	while ((c = getopt_long(argc, argv, "o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 't': opts.title = optarg; break;
		case 'h':
			printf("usage: " TOOL " [-o OUT.svg] [--title T] [FOLDED...]\n"
			       "Draw collapsed stacks ('a;b;c COUNT' lines; standard input\n"
			       "if no file) as a flame graph in SVG.\n");
			return 0;
		default:
			return 2;
		}
	}
	vmstack_profile_init(&p);
	for (i = optind; i < argc || (i == optind && optind == argc); i++) {
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
	if (output && !(out = fopen(output, "w"))) {
		perror(output);
		return 1;
	}
	err = vmstack_svg_write(&p, &opts, out);
	if ((out != stdout && fclose(out)) || err) {
		perror(output ? output : "stdout");
		return 1;
	}
	vmstack_profile_free(&p);
	return 0;
}
