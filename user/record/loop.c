// SPDX-License-Identifier: GPL-2.0
/*
 * The recording loop (record.h): wait for a target's exit or the next
 * wake-up, drain the rings, end an interval, look for new mappings and
 * -p's new children, show the status line; until the targets exit, time
 * is up or a signal.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "follow.h"
#include "record.h"
#include "ring_size.h"
#include "setuid_watch.h"

static volatile sig_atomic_t stop_requested, rotate_requested;
/* --every: SIGHUP ends an interval; else it ends the recording (a hangup). */
static int hup_rotates;

static void on_signal(int sig)
{
	if (sig == SIGHUP && hup_rotates)
		rotate_requested = 1;
	else
		stop_requested = 1;
}

void record_catch_signals(int hup_rotate)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hup_rotates = hup_rotate;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* --every: the interval under way written if it is due (or SIGHUP asked). */
static void maybe_rotate(struct recording *r)
{
	struct record_series *sr = &r->series;

	if (!r->o->every || !(rotate_requested || record_now() >= sr->next))
		return;
	rotate_requested = 0;
	record_write_interval(r);
	/*
	 * Boundaries stay on the grid (a late wake-up does not push the next
	 * one later, so -d 60 --every 10 gives six whole intervals); a
	 * SIGHUP's interval ends early and the next ends on the grid; a
	 * recorder stopped for longer than an interval starts a new grid.
	 */
	if (sr->next <= r->interval.start)
		sr->next += r->o->every;
	if (sr->next <= r->interval.start)
		sr->next = r->interval.start + r->o->every;
}

/*
 * The module wakes us when a ring is a quarter full (4.2): the timer is
 * for -d, the status line and new mappings. An older one does not, nor is
 * its file polled once a ring is corrupt (intake.c): then wake when a ring
 * can be a quarter full, every sample the largest the depth allows
 * (ring_size.h). Either way at once after a drain that found one over
 * half full (record_loop), so a burst does not wait.
 */
void record_drain_period(struct recording *r)
{
	r->drain_ms = r->session.wake_fd >= 0 ? RING_DRAIN_MAX_MS :
		      ring_drain_ms(r->session.started.ring_pages, (size_t)sysconf(_SC_PAGESIZE),
				    r->session.started.freq,
				    ring_record_max(r->o->max_depth, r->o->kernel));
}

void record_loop(struct recording *r)
{
	const struct record_options *o = r->o;
	int show = !o->quiet && isatty(STDERR_FILENO), full = 0;
	double t0, last_status, last_change, last_watch;
	struct vmstack_cpu_counts c;

	record_drain_period(r);
	t0 = last_status = last_change = last_watch = record_now();
	/* Intervals and -d count from here (the first also holds the setup's samples). */
	r->series.next = t0 + o->every;
	while (!stop_requested && !record_targets_done(&r->targets)) {
		/* Every 10 ms while a loader maps libraries (describe.c's refresh). */
		record_targets_wait(&r->targets, full ? 0 :
				    record_now() - last_change < 0.5 ? 10 : (int)r->drain_ms);
		full = record_drain(r);
		if (o->duration && record_now() - t0 >= o->duration)
			break;
		maybe_rotate(r);
		if (record_targets_refresh(&r->targets, last_change))
			last_change = record_now();
		record_follow_scan(&r->targets);
		/* A look at /proc per target: not at every pass of 10 ms. */
		if (r->session.started.task_events && record_now() - last_watch >= 0.1) {
			last_watch = record_now();
			record_setuid_watch(&r->targets);
		}
		if (show && record_now() - last_status >= 1.0) {
			last_status = record_now();
			record_session_counts(&r->session, &c, NULL);
			fprintf(stderr, "\r" TOOL ": %" PRIu64 " %s, %" PRIu64 " lost   ",
				r->series.samples_before + r->interval.stacks.samples,
				o->wall ? "samples and waits" : o->off_cpu ? "waits" : "samples",
				VMSTACK_CNT(&c, DROPPED));
		}
	}
	if (show)
		fputc('\n', stderr);
}
