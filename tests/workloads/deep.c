// SPDX-License-Identifier: GPL-2.0
/*
 * Deep recursion: descend DEPTH frames of recurse(), then burn CPU in
 * deep_leaf for SECONDS. Stacks are far deeper than any depth cap.
 * Usage: deep DEPTH SECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

void deep_leaf(double seconds)
{
	struct timespec t0, t;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

void recurse(int depth, double seconds)
{
	if (depth > 0)
		recurse(depth - 1, seconds);
	else
		deep_leaf(seconds);
	sink++;		/* not a tail call */
}

int main(int argc, char **argv)
{
	recurse(argc > 1 ? atoi(argv[1]) : 3000, argc > 2 ? atof(argv[2]) : 2);
	return 0;
}
