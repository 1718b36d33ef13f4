// SPDX-License-Identifier: GPL-2.0
/* vmstack-report: turn a raw recording (vmstack-record --raw) into a profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"
#include "profile.h"
#include "raw_file.h"
#include "stacks.h"

#define TOOL "vmstack-report"

enum { OPT_FORMAT = CLI_LONG_ONLY, OPT_PER_THREAD, OPT_INVERTED, OPT_LINES, OPT_NO_DEMANGLE };

static const struct cli_option options[] = {
	{ "input", 'i', "FILE", "the raw recording" },
	{ "output", 'o', "FILE", "the profile (default: standard output); its suffix\n"
	  "picks the format unless --format says" },
	{ "format", OPT_FORMAT, "FORMAT", "the output format (below; default folded)" },
	{ "per-thread", OPT_PER_THREAD, NULL, "one root frame per thread (COMM/TID)" },
	{ "inverted", OPT_INVERTED, NULL, "svg only: an icicle graph, stacks merged from the\n"
	  "leaf: leaf functions on the top row, callers below" },
	{ "lines", OPT_LINES, NULL, "native frames as \"func (file.c:LINE)\", and a frame\n"
	  "for each call inlined there (DWARF: the file's or\nits separate debug file's)" },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, "native functions' names as their files spell them\n"
	  "(C++'s and Rust's are demangled: \"ns::f(int)\")" },
	{ NULL, 0, NULL, NULL },
};

static const struct cli report_cli = {
	.tool = TOOL,
	.usage = "-i RAWFILE [-o FILE] [--format FORMAT] [--per-thread] [--inverted] [--lines]"
		 " [--no-demangle]",
	.about = "Name and collapse the samples of a raw recording (vmstack-record --raw).\n"
		 "The files it mapped must still be there to be named.",
	.options = options,
	.more = vmstack_output_help,
	.examples = "  " TOOL " -i run.raw -o run.svg\n"
		    "  " TOOL " -i run.raw -o run.pb.gz    for go tool pprof\n",
};

struct settings {
	const char *input, *output;
	const struct vmstack_output *format;
	int per_thread;
	struct vmstack_output_opts oo;
	int lines, no_demangle;
};

static int set_option(void *arg, int key, const char *val)
{
	struct settings *s = arg;

	switch (key) {
	case 'i':
		s->input = val;
		return 0;
	case 'o':
		s->output = val;
		return 0;
	case OPT_FORMAT:
		s->format = vmstack_output_find(val);
		if (!s->format)
			fprintf(stderr, TOOL ": unknown format '%s' (known: %s)\n", val,
				vmstack_output_names());
		return s->format ? 0 : -1;
	case OPT_PER_THREAD:
		s->per_thread = 1;
		return 0;
	case OPT_INVERTED:
		s->oo.inverted = 1;
		return 0;
	case OPT_LINES:
		s->lines = 1;
		return 0;
	case OPT_NO_DEMANGLE:
		s->no_demangle = 1;
		return 0;
	}
	return -1;
}

/* Every stack of a recording is its process's, named as it recorded them. */
static int raw_source(void *arg, uint32_t pid, struct vmstack_name_source *src)
{
	struct vmstack_raw *raw = arg;

	(void)pid;
	*src = (struct vmstack_name_source){ .proc = raw->proc, .comm = raw->head.comm };
	return 0;
}

int main(int argc, char **argv)
{
	struct settings s = { 0 };
	struct vmstack_profile p;
	struct vmstack_stacks st;
	struct vmstack_raw raw;
	const struct vmstack_rec_sample *rec;
	int first, err, more;
	char msg[256];

	first = cli_parse(&report_cli, argc, argv, set_option, &s);
	if (first < 0 || !s.input || first < argc) {
		if (first >= 0)
			cli_help(&report_cli, stderr);
		return 2;
	}
	if (!s.format && s.output)
		s.format = vmstack_output_for_path(s.output);
	if (!s.format)
		s.format = vmstack_outputs[0];
	if (vmstack_output_refuses(s.format, &s.oo)) {
		fprintf(stderr, TOOL ": %s\n", vmstack_output_refuses(s.format, &s.oo));
		return 2;
	}
	if (vmstack_raw_open(s.input, &raw, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": %s: %s\n", s.input, msg);
		return 1;
	}
	/* Each record counted as it is read: none is kept. */
	vmstack_stacks_init(&st, s.per_thread);
	while ((more = vmstack_raw_next(&raw, &rec, msg, sizeof(msg))) > 0)
		vmstack_stacks_add(&st, rec);
	if (more < 0) {
		fprintf(stderr, TOOL ": %s: %s\n", s.input, msg);
		vmstack_stacks_free(&st);
		vmstack_raw_free(&raw);
		return 1;
	}
	vmstack_profile_init(&p);
	vmstack_profile_name(&p, &st, &(struct vmstack_name_opts){
		.source = raw_source, .arg = &raw, .per_thread = s.per_thread,
		.threads = &raw.threads, .lines = s.lines, .no_demangle = s.no_demangle });
	p.lost = raw.head.lost;
	p.freq = raw.head.freq;
	p.duration_ns = raw.head.duration_ns;
	err = vmstack_output_to_path(s.format, &p, &s.oo,
				     s.output && strcmp(s.output, "-") ? s.output : NULL, TOOL);
	fprintf(stderr, TOOL ": %llu samples, %zu distinct stacks\n",
		(unsigned long long)st.samples, st.n);
	vmstack_profile_free(&p);
	vmstack_stacks_free(&st);
	vmstack_raw_free(&raw);
	return err ? 1 : 0;
}
