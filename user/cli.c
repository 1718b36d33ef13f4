// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <linux/vmstack.h>

#include "cli.h"
#include "util.h"

#ifndef VMSTACK_VERSION
#error "VMSTACK_VERSION is not defined: the Makefile passes the file VERSION's"
#endif

#define HELP_COLUMN 24
/* --version has no short letter and no entry in a tool's table. */
#define KEY_VERSION (CLI_LONG_ONLY - 1)

void cli_version(const struct cli *c, FILE *f)
{
	fprintf(f, "%s %s (ABI %d.%d)\n", c->tool, VMSTACK_VERSION, VMSTACK_ABI_MAJOR,
		VMSTACK_ABI_MINOR);
}

void cli_help(const struct cli *c, FILE *f)
{
	const struct cli_option *o;
	const char *u, *h;
	int first = 1, col;

	for (u = c->usage; *u; first = 0) {
		size_t n = strcspn(u, "\n");

		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", c->tool, (int)n, u);
		u += n + (u[n] == '\n');
	}
	fprintf(f, "%s\n\n", c->about);
	for (o = c->options; o->name; o++) {
		if (o->key < CLI_LONG_ONLY)
			col = fprintf(f, "  -%c, --%s", o->key, o->name);
		else
			col = fprintf(f, "      --%s", o->name);
		if (o->arg)
			col += fprintf(f, " %s", o->arg);
		for (h = o->help; *h;) {
			size_t n = strcspn(h, "\n");

			if (col >= HELP_COLUMN) {
				fputc('\n', f);
				col = 0;
			}
			fprintf(f, "%*s%.*s\n", HELP_COLUMN - col, "", (int)n, h);
			col = 0;
			h += n + (h[n] == '\n');
		}
	}
	fprintf(f, "  -h, --help%*sthis text\n", HELP_COLUMN - 12, "");
	fprintf(f, "      --version%*sthe version, and the vmstack.ko ABI built for\n",
		HELP_COLUMN - 15, "");
	if (c->more) {
		fputc('\n', f);
		c->more(f);
	}
	if (c->examples)
		fprintf(f, "\nExamples:\n%s", c->examples);
	if (c->footer)
		fprintf(f, "\n%s", c->footer);
}

int cli_parse(const struct cli *c, int argc, char **argv,
	      int (*set)(void *arg, int key, const char *val), void *arg)
{
	size_t n = 0, i;
	struct option *longopts;
	char *shortopts, *s;
	int key;

	while (c->options[n].name)
		n++;
	longopts = xcalloc(n + 3, sizeof(*longopts));
	shortopts = s = xmalloc(3 * n + 4);
	*s++ = '+';
	for (i = 0; i < n; i++) {
		const struct cli_option *o = &c->options[i];

		longopts[i].name = o->name;
		longopts[i].has_arg = o->arg ? required_argument : no_argument;
		longopts[i].val = o->key;
		if (o->key < CLI_LONG_ONLY) {
			*s++ = (char)o->key;
			if (o->arg)
				*s++ = ':';
		}
	}
	longopts[n].name = "help";
	longopts[n].val = 'h';
	longopts[n + 1].name = "version";
	longopts[n + 1].val = KEY_VERSION;
	*s++ = 'h';
	*s = 0;
	while ((key = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (key == 'h') {
			cli_help(c, stdout);
			exit(0);
		}
		if (key == KEY_VERSION) {
			cli_version(c, stdout);
			exit(0);
		}
		if (key == '?' || set(arg, key, optarg)) {
			fprintf(stderr, "%s: see '%s --help'\n", c->tool, c->tool);
			optind = -1;
			break;
		}
	}
	free(longopts);
	free(shortopts);
	return optind;
}

int cli_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || *s == '-' || v < min || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}
