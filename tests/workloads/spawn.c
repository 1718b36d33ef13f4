// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that come and go all the time, each telling its own CPU time:
 * for SECONDS, keeps 3 threads alive, each of which spins in spawn_spin
 * until its thread CPU clock reaches MS milliseconds, then prints
 *   TID START_NS END_NS CPU_NS
 * (CLOCK_MONOTONIC at its first and last instruction, its
 * CLOCK_THREAD_CPUTIME_ID at the end) and exits; a new one replaces it.
 * Usage: spawn SECONDS MS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ALIVE 3

static volatile unsigned long sink;
static sem_t slots;
static uint64_t work_ns;

static uint64_t now_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void spawn_spin(void)
{
	unsigned long i;

	for (i = 0; i < 20000; i++)
		sink += i;
}

void *spawn_worker(void *arg)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC), cpu;

	(void)arg;
	do
		spawn_spin();
	while ((cpu = now_ns(CLOCK_THREAD_CPUTIME_ID)) < work_ns);
	/* One write(2) a line: the threads' lines do not mix. */
	dprintf(1, "%d %llu %llu %llu\n", gettid(), (unsigned long long)start,
		(unsigned long long)now_ns(CLOCK_MONOTONIC), (unsigned long long)cpu);
	sem_post(&slots);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	uint64_t end;
	pthread_attr_t attr;
	pthread_t t;
	int i;

	work_ns = (uint64_t)((argc > 2 ? atof(argv[2]) : 40) * 1e6);
	end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	sem_init(&slots, 0, ALIVE);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		sem_wait(&slots);
		if (pthread_create(&t, &attr, spawn_worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	}
	/* The last ones finish and print. */
	for (i = 0; i < ALIVE; i++)
		sem_wait(&slots);
	return 0;
}
