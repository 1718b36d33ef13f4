// SPDX-License-Identifier: GPL-2.0
/*
 * Time spent in a signal handler: main_loop spins while a 5 ms interval
 * timer delivers SIGALRM, and on_alarm spins inside the handler. The
 * handler's stack must go through the signal frame back to main_loop.
 * Usage: signals SECONDS
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

void handler_spin(void)
{
	unsigned long i;

	for (i = 0; i < 300000; i++)
		sink += i;
}

void on_alarm(int sig)
{
	(void)sig;
	handler_spin();
}

void main_loop(double seconds)
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

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };

	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	main_loop(argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
