// SPDX-License-Identifier: GPL-2.0
/*
 * Each target to the module and the namer (targets.h): its VMs and unwind
 * rules as its mappings appear, its mappings and name read again when
 * they may have changed.
 */
#include <stdio.h>

#include "clock.h"
#include "options.h"
#include "py_tramp.h"
#include "session.h"
#include "process.h"
#include "targets.h"
#include "util.h"
#include "vm/attach.h"
#include "vm_prog_check.h"

uint32_t record_module_pid(const struct record_targets *ts, const struct vmstack_target *t)
{
	return t == ts->t && !ts->whole ? 0 : (uint32_t)t->pid;
}

/*
 * VM @d4 to the module, checked first as the module will check it, so
 * that a refusal names the instruction.
 */
static int vm_add(void *arg, const struct vmstack_vm_desc4 *d4, char *msg, size_t len)
{
	struct vmstack_target *t = arg;
	struct record_targets *ts = t->owner;
	struct record_session *s = ts->session;
	int at = -1;
	const char *why = vmstack_vm_desc4_check_insn(d4, &at);

	if (why) {
		if (at >= 0)
			snprintf(msg, len, "VM program, instruction %d: %s", at, why);
		else
			snprintf(msg, len, "%s", why);
		return -1;
	}
	return vmstack_nl_vm_add(s->nl, s->started.fd, record_module_pid(ts, t), d4,
				 sizeof(*d4), msg, len) < 0 ? -1 : 0;
}

/* A new executable mapping: its VM, if any, and its unwind rules. */
static void on_new_map(void *arg, struct vmstack_map *m)
{
	struct vmstack_target *t = arg;
	struct record_targets *ts = t->owner;

	/* Not in the module's set (-a: a kernel thread, or refused): names only. */
	if (!t->described)
		return;
	vmstack_vm_attach_map(&t->vms, m);
	if (ts->o->cfi)
		vmstack_unwind_upload(ts->session->nl, ts->session->started.fd,
				      record_module_pid(ts, t), m, &ts->uw);
	record_py_tramp_map(ts, t, m);
}

void record_target_open(struct record_targets *ts, struct vmstack_target *t, int pid)
{
	const struct record_options *o = ts->o;

	vmstack_target_open(t, pid, ts);
	t->described = 1;
	t->vms = (struct vmstack_vm_attach){
		.tool = TOOL, .pid = t->pid, .proc = t->proc, .add = vm_add, .arg = t,
		.detect = o->vm == VM_AUTO || o->vm == VM_RUNTIME,
		.only = o->vm == VM_RUNTIME ? o->vm_runtime : NULL,
	};
	vmstack_process_on_new_map(t->proc, on_new_map, t);
}

void record_note_join_delay(struct record_targets *ts, const struct vmstack_target *t)
{
	double started = t->described && ts->o->stats ? vmstack_target_started(t->pid) : -1;

	if (started < ts->boot_started || ts->njoin_delay == 65536)
		return;
	if (ts->njoin_delay == ts->capjoin_delay) {
		ts->capjoin_delay = ts->capjoin_delay ? 2 * ts->capjoin_delay : 64;
		ts->join_delay = xrealloc(ts->join_delay,
					  ts->capjoin_delay * sizeof(*ts->join_delay));
	}
	ts->join_delay[ts->njoin_delay++] = record_boottime() - started;
}

int record_targets_vm_file(struct record_targets *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (ts->o->vm == VM_FILE &&
		    vmstack_vm_attach_text(&ts->t[i].vms, ts->o->vm_file, 0))
			return -1;
	return 0;
}

void record_targets_describe(struct record_targets *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++) {
		struct vmstack_target *t = &ts->t[i];

		/* A command's exec and loader come next: read often for a while. */
		t->refreshed = t->changed = record_now();
		vmstack_process_refresh(t->proc);
		record_py_tramp_refresh(ts, t);
		if (ts->o->vm == VM_AUTO)
			vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
		vmstack_target_read_comm(t);
	}
}

/*
 * A target's new libraries (dlopen) and changed name (exec): each second,
 * every 10 ms for half a second after a new mapping (@since_change), while
 * a dynamic loader maps libraries, and within 50 ms of a sample in code of
 * a mapping not read yet. Returns 1 if a mapping was new.
 */
static int refresh_target(struct record_targets *ts, struct vmstack_target *t,
			  double since_change)
{
	double at = record_now();

	/*
	 * -a, --cgroup: no reading of every process each second, only of
	 * those whose samples or own new mappings ask for it.
	 */
	if (ts->whole && at - t->changed >= 0.5 && !t->maps_stale)
		return 0;
	if (t->pid <= 0 || t->exited ||
	    at - t->refreshed < (since_change < 0.5 ? 0.0 : t->maps_stale ? 0.05 : 1.0))
		return 0;
	t->refreshed = at;
	t->maps_stale = 0;
	if (ts->o->vm == VM_AUTO && t->described)
		vmstack_vm_attach_text(&t->vms, t->vm_file, 1);
	vmstack_target_read_comm(t);
	if (vmstack_process_refresh(t->proc) <= 0)
		return 0;
	/* New mappings: an arena of CPython's perf trampolines among them? */
	record_py_tramp_refresh(ts, t);
	t->changed = at;
	return 1;
}

int record_targets_refresh(struct record_targets *ts, double last_change)
{
	int changed = 0;
	size_t i;

	/* -a and the like: each target's own last change, not the set's. */
	for (i = 0; i < ts->n; i++)
		changed |= refresh_target(ts, &ts->t[i], record_now() -
					  (ts->whole ? ts->t[i].changed : last_change));
	return changed;
}

void record_targets_load_perf_maps(struct record_targets *ts)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (ts->t[i].pid >= 0)
			vmstack_process_load_perf_map(ts->t[i].proc);
}
