// SPDX-License-Identifier: GPL-2.0
/*
 * Profiles out (record.h): the interval's stacks named, each process's
 * with its own names, and written once at the end, or per interval into
 * --every's directory (rotate.c); --raw's recording.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "profile.h"
#include "record.h"

/* "-" for standard output, as NULL. */
static const char *out_path(const char *path)
{
	return path && strcmp(path, "-") ? path : NULL;
}

/* Process @pid's stacks are named by its target, if it has one. */
static int target_source(void *arg, uint32_t pid, struct vmstack_name_source *src)
{
	struct record_targets *ts = arg;
	struct vmstack_target *t = vmstack_target_find(ts->t, ts->n, (int)pid);

	if (!t)
		return -1;
	*src = (struct vmstack_name_source){ .proc = t->proc, .comm = t->comm,
					     .cgroup = t->cgroup };
	return 0;
}

/* The stacks so far, named: each process's with its own names. */
static void name_profile(struct recording *r, struct vmstack_profile *p, uint64_t lost,
			 uint64_t duration_ns)
{
	const struct record_options *o = r->o;
	struct record_targets *ts = &r->targets;

	vmstack_profile_init(p);
	/* Roots tell the processes apart. */
	vmstack_profile_name(p, &r->interval.stacks, &(struct vmstack_name_opts){
		.source = target_source, .arg = ts, .root_pid = ts->n > 1 || ts->whole,
		.per_thread = o->per_thread, .threads = &r->interval.threads,
		.lines = o->lines, .no_demangle = o->no_demangle });
	p->lost = lost;
	/* Off CPU or wall, a count is time (us), not a sample. */
	p->off_cpu = o->off_cpu && !o->wall;
	p->wall = o->wall;
	p->freq = o->off_cpu ? 0 : r->session.started.freq;
	p->duration_ns = duration_ns;
}

int record_series_open(struct recording *r)
{
	const struct record_options *o = r->o;

	r->series.rotate = (struct vmstack_rotate){ .dir = o->output, .format = o->format,
		.keep = o->keep, .tool = TOOL };
	return o->every ? vmstack_rotate_open(&r->series.rotate) : 0;
}

void record_interval_begin(struct recording *r, double at, uint64_t lost)
{
	r->interval.start = at;
	r->interval.wall = time(NULL);
	r->interval.lost_before = lost;
}

int record_write_interval(struct recording *r)
{
	struct record_interval *iv = &r->interval;
	struct vmstack_cpu_counts c;
	struct vmstack_profile p;
	double at = record_now();
	uint64_t lost;
	int err;

	record_session_counts(&r->session, &c, NULL);
	lost = VMSTACK_CNT(&c, DROPPED) - iv->lost_before;
	name_profile(r, &p, lost, (uint64_t)((at - iv->start) * 1e9));
	err = vmstack_rotate_write(&r->series.rotate, &p, &r->o->oo, iv->wall);
	if (!err && !r->o->quiet && r->o->off_cpu)
		fprintf(stderr, TOOL ": %s: %.3f s %s, %zu stacks, %" PRIu64 " lost\n",
			r->series.rotate.last, p.samples / 1e6,
			r->o->wall ? "on and off CPU" : "off CPU", p.nstacks, lost);
	else if (!err && !r->o->quiet)
		fprintf(stderr, TOOL ": %s: %" PRIu64 " samples, %zu stacks, %" PRIu64 " lost\n",
			r->series.rotate.last, p.samples, p.nstacks, lost);
	r->series.written += !err;
	vmstack_profile_free(&p);
	/* The next interval starts empty: memory stays flat however long. */
	r->series.samples_before += iv->stacks.samples;
	vmstack_stacks_free(&iv->stacks);
	vmstack_stacks_init(&iv->stacks, r->o->per_thread);
	vmstack_threads_free(&iv->threads);
	vmstack_threads_init(&iv->threads);
	record_interval_begin(r, at, VMSTACK_CNT(&c, DROPPED));
	record_targets_reap(&r->targets);
	return err;
}

int record_write_output(struct recording *r, uint64_t lost)
{
	const struct record_options *o = r->o;
	struct vmstack_profile p;
	int err = 0;

	name_profile(r, &p, lost, r->duration_ns);
	if (o->output || !o->svg)
		err = vmstack_output_to_path(o->format, &p, &o->oo, out_path(o->output), TOOL);
	if (o->svg && vmstack_output_to_path(vmstack_output_find("svg"), &p, &o->oo,
					     out_path(o->svg), TOOL))
		err = -1;
	vmstack_profile_free(&p);
	return err;
}

int record_write_raw(struct recording *r, const struct vmstack_cpu_counts *c)
{
	const struct vmstack_target *t = &r->targets.t[0];
	struct vmstack_raw_head head = { .pid = t->pid, .freq = r->session.started.freq,
		.lost = VMSTACK_CNT(c, DROPPED), .duration_ns = r->duration_ns };

	snprintf(head.comm, sizeof(head.comm), "%s", t->comm);
	if (vmstack_raw_write(r->o->raw, &head, t->proc, &r->interval.threads, &r->raw)) {
		fprintf(stderr, TOOL ": cannot write %s: %s\n", r->o->raw, strerror(errno));
		return -1;
	}
	return 0;
}
