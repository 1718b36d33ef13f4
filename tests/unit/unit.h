/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness: each TEST prints "PASS name" or "FAIL name"
 * (the lines tests/run counts); CHECK failures say where and why.
 */
#ifndef VMSTACK_UNIT_H
#define VMSTACK_UNIT_H

#include <stdio.h>

extern int unit_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		unit_failed = 1;					\
	}								\
} while (0)

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_TEST(name) static void name(void)

void unit_run(const struct unit_test *tests, int n);

#endif
