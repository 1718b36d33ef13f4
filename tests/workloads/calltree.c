// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose call tree is known: main -> run -> hot_three -> spin
 * takes 3 parts of the CPU time and main -> run -> cold_one -> spin takes
 * 1 part. Built with frame pointers and no inlining (see the Makefile).
 * Usage: calltree SECONDS     run for that long
 *        calltree -n ROUNDS   do a fixed amount of work and print the time
 *                             it took ("elapsed SECONDS"), for benchmarks
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

void spin(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * i;
}

void hot_three(unsigned long n)
{
	spin(3 * n);
}

void cold_one(unsigned long n)
{
	spin(n);
}

void run(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		hot_three(200000);
		cold_one(200000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double t0;
	long i;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		t0 = now();
		for (i = 0; i < atol(argv[2]); i++) {
			hot_three(200000);
			cold_one(200000);
		}
		printf("elapsed %.4f\n", now() - t0);
		return 0;
	}
	run(argc > 1 ? atof(argv[1]) : 3);
	return 0;
}
