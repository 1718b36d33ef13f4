// SPDX-License-Identifier: GPL-2.0
/*
 * Samples in: each CPU's ring drained, each record counted into the
 * interval's stacks, and a new stack looked at while what it names still
 * exists (record.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "record.h"
#include "ring_reader.h"
#include "process.h"

/*
 * Count @rec's stack by @weight (a sample: 1). A stack seen before was
 * looked at then: its VM words are named and its mappings known or
 * looked for. A new one: VM objects may be freed soon, so name its VM
 * frames now; code in a mapping not read yet (dlopen) should have its
 * unwind rules reach the module now, not at the next periodic refresh.
 */
static void add_stack(const struct vmstack_rec_sample *rec, uint64_t weight, void *arg)
{
	struct recording *r = arg;
	struct vmstack_frame_iter it;
	struct vmstack_frame f, caller;
	struct vmstack_target *t;

	if (!vmstack_stacks_add_weight(&r->interval.stacks, rec, weight))
		return;
	t = record_targets_of_sample(&r->targets, (int)rec->pid);
	if (!t)
		return;
	vmstack_stack_frames(r->interval.stacks.added, &it);
	while (vmstack_frames_next(&it, &f))
		if (vmstack_frame_is_vm(f.kind))
			vmstack_process_note_vm(t->proc, &f,
						vmstack_frames_caller(&it, &f, &caller,
								      vmstack_process_vm_across(t->proc, f.vm)));
		else if (f.kind == VMSTACK_FRAME_NATIVE && !t->maps_stale &&
			 !vmstack_process_knows(t->proc, f.value))
			t->maps_stale = 1;
}

void record_intake_init(struct recording *r)
{
	vmstack_stacks_init(&r->interval.stacks, r->o->per_thread);
	vmstack_threads_init(&r->interval.threads);
	if (r->o->off_cpu)
		vmstack_off_cpu_init(&r->off_cpu, (uint64_t)r->o->min_wait_us * 1000,
				     add_stack, r);
}

uint64_t record_wall_sample_us(const struct recording *r)
{
	unsigned int freq = r->session.started.freq ? r->session.started.freq : r->o->freq;

	return (1000000 + freq / 2) / freq;
}

static void on_sample(const struct vmstack_rec_sample *rec, void *arg)
{
	struct recording *r = arg;

	/* Thread names: for --per-thread's labels and raw files only. */
	if (r->o->per_thread || r->o->raw)
		vmstack_threads_note(&r->interval.threads, (int)rec->pid, rec->tid);
	r->undescribed += !!(rec->hdr.flags & VMSTACK_SF_UNDESCRIBED);
	record_vm_cuts_note(&r->vm_cuts, rec);
	if (r->o->raw)
		vmstack_raw_append(&r->raw, rec);
	/*
	 * A switch-out's weight is known later (off_cpu.h); its stack is
	 * looked at now, with weight 0, while what it names lives.
	 */
	if (rec->hdr.type == VMSTACK_REC_SWITCH) {
		add_stack(rec, 0, r);
		vmstack_off_cpu_take(&r->off_cpu, rec);
	} else if (r->o->wall) {
		r->wall_samples++;
		add_stack(rec, record_wall_sample_us(r), r);
	} else {
		add_stack(rec, 1, r);
	}
}

int record_drain(struct recording *r)
{
	struct record_session *s = &r->session;
	/* Before any ring is read: --off-cpu's records older than this are all in. */
	uint64_t began = record_now_ns();
	unsigned int cpu;
	int full = 0;

	for (cpu = 0; cpu < s->started.nr_cpus; cpu++) {
		struct vmstack_ring_view *v = &s->rings[cpu];
		uint64_t used = vmstack_ring_used(v);

		/* Only a ring read whole counts: a corrupt one is not drained again. */
		if (vmstack_ring_drain(v, on_sample, r) >= 0) {
			full |= used > v->size / 2;
		} else if (!s->ring_broken) {
			s->ring_broken = 1;
			/* It stays full: its file would poll readable at once, always. */
			s->wake_fd = -1;
			record_drain_period(r);
			fprintf(stderr, TOOL ": ring of CPU %u is corrupt; its samples are lost\n",
				cpu);
		}
	}
	if (r->o->off_cpu)
		vmstack_off_cpu_settle(&r->off_cpu, began);
	r->drains++;
	r->drains_full += full;
	return full;
}

void record_intake_end(struct recording *r)
{
	if (r->o->off_cpu) {
		/* The session stopped: every record is in. */
		vmstack_off_cpu_settle(&r->off_cpu, UINT64_MAX);
		vmstack_off_cpu_end(&r->off_cpu);
	}
}

void record_intake_free(struct recording *r)
{
	if (r->interval.stacks.slots)
		vmstack_stacks_free(&r->interval.stacks);
	vmstack_threads_free(&r->interval.threads);
	free(r->raw.data);
	if (r->o->off_cpu)
		vmstack_off_cpu_free(&r->off_cpu);
}
