// SPDX-License-Identifier: GPL-2.0
/*
 * Time spent in a signal handler: main_loop spins while a 5 ms interval
 * timer delivers SIGALRM, and on_alarm spins inside the handler. The
 * handler's stack must go through the signal frame back to main_loop.
 * Where the handler takes longer than the interval (a debug kernel under
 * emulation, a sampler's cost) the next signal is pending as it returns
 * and main_loop never runs again: so the handler itself stops the timer
 * once the time is up, and main_loop then ends.
 * Usage: signals SECONDS
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;
static struct timespec start;
static double duration;

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - start.tv_sec) + (t.tv_nsec - start.tv_nsec) / 1e9;
}

void handler_spin(void)
{
	unsigned long i;

	for (i = 0; i < 300000; i++)
		sink += i;
}

void on_alarm(int sig)
{
	static const struct itimerval off;

	(void)sig;
	handler_spin();
	/* clock_gettime and setitimer are async-signal-safe. */
	if (elapsed() >= duration)
		setitimer(ITIMER_REAL, &off, NULL);
}

void main_loop(void)
{
	unsigned long i;

	do {
		for (i = 0; i < 100000; i++)
			sink += i;
	} while (elapsed() < duration);
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };

	duration = argc > 1 ? atof(argv[1]) : 2;
	clock_gettime(CLOCK_MONOTONIC, &start);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	main_loop();
	return 0;
}
