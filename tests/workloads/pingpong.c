// SPDX-License-Identifier: GPL-2.0
/*
 * Context switches as fast as two threads can make them: a byte passed
 * back and forth over two pipes N times, each pass a wait of one thread
 * and a wake-up of the other (scripts/guest-bench-offcpu: what recording
 * every switch-out costs). Prints "elapsed SECONDS", "cpu SECONDS" (both
 * threads' user and system time; a handler that runs at their switches
 * is not in it: the scheduler charged the outgoing thread before perf's switch
 * event, so it lands on the next task, often the idle one) and "passes N".
 * Usage: pingpong N
 */
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long passes;

static void *ponger(void *arg)
{
	char c;
	long i;

	(void)arg;
	for (i = 0; i < passes; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pthread_t t;
	char c = 'x';
	long i;

	passes = argc > 1 ? atol(argv[1]) : 100000;
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < passes; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("elapsed %.4f\ncpu %.4f\npasses %ld\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, passes);
	return 0;
}
