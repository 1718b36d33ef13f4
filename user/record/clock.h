/* SPDX-License-Identifier: GPL-2.0 */
/* The recorder's clocks, in seconds. */
#ifndef VMSTACK_RECORD_CLOCK_H
#define VMSTACK_RECORD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Intervals, refresh times, -d: immune to the wall clock's steps. */
static inline double record_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same clock in ns: the module's records' (ktime_get_mono_fast_ns()). */
static inline uint64_t record_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The clock of a process's start time in /proc (it counts suspend). */
static inline double record_boottime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
