// SPDX-License-Identifier: GPL-2.0
/*
 * Threads and processes that come and go: for SECONDS, start 8 threads
 * that each spin briefly and exit, and fork a child that does the same.
 * Usage: churn SECONDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

void *churn_worker(void *arg)
{
	unsigned long i;

	(void)arg;
	for (i = 0; i < 200000; i++)
		sink += i;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	struct timespec t0, t;
	pthread_t th[8];
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, churn_worker, NULL);
		if (fork() == 0) {
			churn_worker(NULL);
			_exit(0);
		}
		for (i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
		wait(NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}
