// SPDX-License-Identifier: GPL-2.0
/*
 * Installed setuid root by t_setuid_exec.sh: makes itself dumpable again
 * (prctl(PR_SET_DUMPABLE, 1), which the kernel allows any process), then
 * spins in suid_dumpable_spin() for SECONDS. A recorder that only watched
 * dumpability would read a root program's memory again from then on.
 * Usage: suid_dumpable SECONDS
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static volatile unsigned long sink;

void suid_dumpable_spin(double seconds)
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
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 1;
	suid_dumpable_spin(argc > 1 ? atof(argv[1]) : 3);
	return 0;
}
