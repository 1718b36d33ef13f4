// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the pure user-space code. */
#include <stdio.h>

#include "unit.h"

int unit_failed;

void unit_run(const struct unit_test *tests, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unit_failed = 0;
		tests[i].fn();
		printf("%s unit:%s\n", unit_failed ? "FAIL" : "PASS", tests[i].name);
		fflush(stdout);
	}
}

void ring_reader_tests(void);
void maps_tests(void);
void symbols_tests(void);
void output_tests(void);
void hist_raw_tests(void);
void vm_tests(void);
void walk_tests(void);
void cpython_lines_tests(void);
void debuginfo_tests(void);

int main(void)
{
	ring_reader_tests();
	maps_tests();
	symbols_tests();
	output_tests();
	hist_raw_tests();
	vm_tests();
	walk_tests();
	cpython_lines_tests();
	debuginfo_tests();
	return 0;
}
