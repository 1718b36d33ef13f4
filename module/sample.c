// SPDX-License-Identifier: GPL-2.0
/*
 * The perf overflow handler: the one place that calls the unwinders and
 * writes a record. It runs in hard interrupt context (software events) or
 * NMI context (hardware events), so it takes no lock, allocates nothing and
 * only touches this CPU's state of the session.
 */
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "vmstack.h"

static u32 vmstack_capture(struct vmstack_session *s, struct vmstack_cpu *pc,
			   struct pt_regs *regs, u16 *nr_kernel, u16 *nr_user)
{
	struct task_struct *task = current;
	struct pt_regs *uregs = NULL;
	unsigned int nk = 0, nu = 0;
	u16 flags = 0;

	if (!user_mode(regs)) {
		flags |= VMSTACK_SF_IN_KERNEL;
		if (s->cfg.stacks & VMSTACK_STACK_KERNEL)
			nk = vmstack_unwind_kernel(regs, pc->ips,
						   s->cfg.max_depth, &flags);
		/* The user registers saved when this task entered the kernel. */
		if (task->mm && !(task->flags & PF_KTHREAD))
			uregs = task_pt_regs(task);
	} else {
		uregs = regs;
	}
	if ((s->cfg.stacks & VMSTACK_STACK_USER) && uregs && user_mode(uregs))
		nu = vmstack_unwind_user(s, uregs, pc->ips + nk,
					 s->cfg.max_depth, &flags);
	*nr_kernel = nk;
	*nr_user = nu;
	return flags;
}

void vmstack_overflow(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	struct vmstack_session *s = event->overflow_handler_context;
	struct task_struct *task = current;
	struct vmstack_rec_sample *rec;
	struct vmstack_cpu *pc;
	u16 nr_kernel, nr_user, flags;
	bool bad_tail;
	u64 t0, ns;
	u32 size;

	/* Comparing struct pid, not numbers: a reused PID never matches. */
	if (task_tgid(task) != s->tgid)
		return;

	pc = this_cpu_ptr(s->pcpu);
	local64_inc(&pc->stats.taken);
	if (READ_ONCE(pc->busy)) {
		local64_inc(&pc->stats.dropped);
		return;
	}
	WRITE_ONCE(pc->busy, 1);
	barrier();
	/* local_clock() is NMI-safe; the handler measures itself (bench). */
	t0 = local_clock();

	flags = vmstack_capture(s, pc, regs, &nr_kernel, &nr_user);
	if (flags & (VMSTACK_SF_KERNEL_TRUNC | VMSTACK_SF_USER_TRUNC))
		local64_inc(&pc->stats.truncated);
	if (flags & VMSTACK_SF_USER_FAULT)
		local64_inc(&pc->stats.user_faults);
	if (flags & VMSTACK_SF_VM_BROKEN)
		local64_inc(&pc->stats.vm_errors);

	size = sizeof(*rec) + (nr_kernel + nr_user) * sizeof(u64);
	rec = vmstack_ring_reserve(&pc->ring, size, &bad_tail);
	if (!rec) {
		if (bad_tail)
			local64_inc(&pc->stats.bad_tail);
		local64_inc(&pc->stats.dropped);
		goto out;
	}
	rec->hdr.type = VMSTACK_REC_SAMPLE;
	rec->hdr.flags = flags;
	rec->hdr.size = size;
	rec->time_ns = ktime_get_mono_fast_ns();
	rec->pid = task_tgid_nr_ns(task, s->pid_ns);
	rec->tid = task_pid_nr_ns(task, s->pid_ns);
	rec->cpu = smp_processor_id();
	rec->nr_kernel = nr_kernel;
	rec->nr_user = nr_user;
	memcpy(rec->ips, pc->ips, (nr_kernel + nr_user) * sizeof(u64));
	vmstack_ring_commit(&pc->ring, size);
	local64_inc(&pc->stats.written);
	local64_add(nr_kernel + nr_user, &pc->stats.frames);
out:
	ns = local_clock() - t0;
	local64_add(ns, &pc->stats.handler_ns);
	pc->stats.hist[vmstack_hist_bucket(ns)]++;
	barrier();
	WRITE_ONCE(pc->busy, 0);
}
