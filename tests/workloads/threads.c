// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that appear after a profiler attached: main waits DELAY seconds,
 * then starts 3 threads that each burn CPU in thread_worker -> thread_spin
 * for SECONDS. Usage: threads DELAY SECONDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds;

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

void thread_spin(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

void *thread_worker(void *arg)
{
	struct timespec t0;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed(&t0) < seconds)
		thread_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	int i;

	usleep((useconds_t)((argc > 1 ? atof(argv[1]) : 1) * 1e6));
	seconds = argc > 2 ? atof(argv[2]) : 1;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread_worker, NULL);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
