/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness. UNIT_TEST(name) { ... } defines a test and
 * registers it: writing the test is all it takes to add one. Each test
 * prints "PASS unit:name" or "FAIL unit:name" (the lines tests/run
 * counts); CHECK failures say where and why.
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
	/* Where it is defined: the run order, whatever the link order. */
	const char *file;
	int line;
	struct unit_test *next;
};

void unit_register(struct unit_test *t);

/*
 * A constructor (run before main) puts the test on the harness's list, so
 * there is no table or prototype to keep in step with the tests.
 */
#define UNIT_TEST(name)							\
	static void name(void);						\
	static struct unit_test unit_test_##name = {			\
		#name, name, __FILE__, __LINE__, NULL			\
	};								\
	__attribute__((constructor)) static void unit_register_##name(void) \
	{								\
		unit_register(&unit_test_##name);			\
	}								\
	static void name(void)

#endif
