/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command lines from one table per tool: the same entries give
 * getopt_long its options and --help its text, so the two cannot differ.
 */
#ifndef VMSTACK_CLI_H
#define VMSTACK_CLI_H

#include <stdio.h>

/* Keys of options without a short letter start here. */
#define CLI_LONG_ONLY 256

struct cli_option {
	const char *name;	/* the long name, without "--" */
	int key;		/* the short letter, or CLI_LONG_ONLY + n */
	const char *arg;	/* the argument in --help; NULL: takes none */
	const char *help;	/* lines joined by '\n' */
};

struct cli {
	const char *tool;
	const char *usage;	/* "-p PID [options]\n[options] -- COMMAND": one form per line */
	const char *about;
	const struct cli_option *options;	/* ends with { NULL } */
	void (*more)(FILE *f);	/* after the options: lists from other tables */
	const char *examples;
	const char *footer;
};

void cli_help(const struct cli *c, FILE *f);
/* "TOOL VERSION (ABI MAJOR.MINOR)": the project's version, the uapi header's ABI. */
void cli_version(const struct cli *c, FILE *f);
/*
 * Parse @argv ('+': options stop at the first operand); @set takes each
 * option (its key and argument) and returns 0, or -1 after saying what is
 * wrong (NULL for a table without options: it is never called). -h and --help print the help and exit 0, --version the version.
 * Returns the index of the first operand, or -1 on a usage error.
 */
int cli_parse(const struct cli *c, int argc, char **argv,
	      int (*set)(void *arg, int key, const char *val), void *arg);
/* An unsigned decimal in [min, max]: 0, or -1. */
int cli_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out);

#endif
