// SPDX-License-Identifier: GPL-2.0
/* vmstack-report: turn a raw recording (vmstack-record --raw) into stacks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"
#include "raw_file.h"

#define TOOL "vmstack-report"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " TOOL " -i RAWFILE [-o FILE] [--per-thread]\n"
"Name and collapse the samples of a raw recording (vmstack-record --raw).\n"
"The files it mapped must still be there to be named.\n"
"  -i, --input FILE   the raw recording\n"
"  -o, --output FILE  collapsed stacks (default: standard output)\n"
"      --per-thread   one root frame per thread (COMM/TID)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "per-thread", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *input = NULL, *output = NULL;
	struct vmstack_stacks st;
	struct vmstack_raw raw;
	int c, per_thread = 0, err;
	FILE *out = stdout;
	char msg[256];
	size_t off;

	while ((c = getopt_long(argc, argv, "i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'o': output = optarg; break;
		case 'T': per_thread = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!input || optind < argc) {
		usage(stderr);
		return 2;
	}
	if (vmstack_raw_read(input, &raw, msg, sizeof(msg))) {
		fprintf(stderr, TOOL ": %s: %s\n", input, msg);
		return 1;
	}
	vmstack_stacks_init(&st, per_thread);
	for (off = 0; off < raw.records.len;) {
		const struct vmstack_rec_sample *rec = (const void *)(raw.records.data + off);

		vmstack_stacks_add(&st, rec);
		off += rec->hdr.size;
	}
	if (output && strcmp(output, "-") && !(out = fopen(output, "w"))) {
		perror(output);
		return 1;
	}
	err = vmstack_fold_write(&st, raw.sym, raw.comm, per_thread, out);
	if (fflush(out) || err) {
		fprintf(stderr, TOOL ": writing the output failed\n");
		err = 1;
	}
	if (out != stdout)
		fclose(out);
	fprintf(stderr, TOOL ": %llu samples, %zu distinct stacks\n",
		(unsigned long long)st.samples, st.n);
	vmstack_stacks_free(&st);
	vmstack_raw_free(&raw);
	return err ? 1 : 0;
}
