// SPDX-License-Identifier: GPL-2.0
/*
 * The library tests/workloads/dlchurn.c loads many copies of. Built
 * without frame pointers: only its .eh_frame rules unwind it, so stacks
 * through it reach main only once the recorder has uploaded them.
 */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void lib_inner(void)
{
	unsigned long i;

	for (i = 0; i < 20000; i++)
		sink += i;
}

void lib_spin(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		lib_inner();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}
