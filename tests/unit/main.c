// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the pure user-space code: every UNIT_TEST linked in,
 * or those whose names match the command line's patterns.
 */
#include <fnmatch.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

int unit_failed;

/* Kept in file then line order, so a run's order does not depend on the
 * order in which the linker laid out the constructors. */
static struct unit_test *tests;

void unit_register(struct unit_test *t)
{
	struct unit_test **p = &tests;
	int c;

	while (*p) {
		c = strcmp((*p)->file, t->file);
		if (c > 0 || (c == 0 && (*p)->line > t->line))
			break;
		p = &(*p)->next;
	}
	t->next = *p;
	*p = t;
}

/* A pattern with a glob character matches whole names; any other, a part. */
static int matches(const char *name, char **pats, int npats)
{
	int i;

	if (!npats)
		return 1;
	for (i = 0; i < npats; i++) {
		if (strpbrk(pats[i], "*?[") ? !fnmatch(pats[i], name, 0) :
					      !!strstr(name, pats[i]))
			return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: unit-tests [--list] [PATTERN...]\n"
		"  runs the tests whose names contain PATTERN, or match it as a\n"
		"  glob (*, ?, [...]); every test without one. --list: print the\n"
		"  names instead of running them. Exit status 1 if a test failed.\n");
}

int main(int argc, char **argv)
{
	struct unit_test *t;
	int list = 0, argi = 1, n = 0, failed = 0;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--list")) {
			list = 1;
		} else if (!strcmp(argv[argi], "--help") || !strcmp(argv[argi], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[argi], "--")) {
			argi++;
			break;
		} else {
			usage(stderr);
			return 2;
		}
	}
	/*
	 * Tests open ELF files themselves as well as through the code under
	 * test, which sets libelf up where it needs it: whichever runs first
	 * (a name filter picks any), libelf is ready.
	 */
	elf_version(EV_CURRENT);
	for (t = tests; t; t = t->next) {
		if (!matches(t->name, argv + argi, argc - argi))
			continue;
		n++;
		if (list) {
			printf("%s\n", t->name);
			continue;
		}
		unit_failed = 0;
		t->fn();
		failed |= unit_failed;
		printf("%s unit:%s\n", unit_failed ? "FAIL" : "PASS", t->name);
		fflush(stdout);
	}
	if (!n) {
		fprintf(stderr, "unit-tests: no test matches\n");
		return 2;
	}
	return failed;
}
