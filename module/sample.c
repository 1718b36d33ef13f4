// SPDX-License-Identifier: GPL-2.0
/*
 * The perf overflow handler: the one place that calls the unwinders and
 * writes a record. It runs in hard interrupt context (software events),
 * NMI context (hardware events) or, for context switches, in the
 * scheduler with the runqueue locked, so it takes no lock, allocates nothing,
 * wakes no task itself (the rings' wake-up is an irq_work) and
 * only touches this CPU's state of the session. Its work is bounded
 * whatever the target does: the user walk by a read budget
 * (VMSTACK_MAX_READS), a deadline (VMSTACK_WALK_MAX_NS) and, for its VM
 * parts, a fault budget (VMSTACK_MAX_VM_FAULTS); the handler's time on
 * each CPU by a throttle.
 */
#include <linux/build_bug.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/fsgsbase.h>
#include <asm/ptrace.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>
#include "compat.h"
#include "events.h"
#include "ring.h"
#include "sample.h"
#include "session.h"
#include "target.h"
#include "unwind_kernel.h"

/*
 * The user stack from registers @uregs (walk.h does the work), within
 * the read budget and by @deadline.
 */
static unsigned int vmstack_capture_user(struct vmstack_session *s, struct vmstack_proc *p,
					 struct vmstack_cpu *pc, struct pt_regs *uregs,
					 u64 deadline, u64 *ips, u16 *flags)
{
	struct vmstack_walk w = {
		.rules = rcu_dereference_raw(p->uw_set),
		.uw_cache = &pc->uw_cache,
		.ip = uregs->ip,
		.sp = uregs->sp,
		.ips = ips,
		.max = s->cfg.max_depth,
		.reads_left = VMSTACK_MAX_READS,
		.deadline = deadline,
		.jit_seen = pc->jit_seen,
		/* In the thread's own PID namespace: what the VM stored. */
		.tid = task_pid_vnr(current),
		/*
		 * The kernel never loads FS for itself on x86-64: from the
		 * return to user space until __switch_to() loads the next
		 * task's, the CPU's fs base is current's (the kernel's own
		 * x86_fsbase_read_task() reads it so for current). Only an
		 * NMI inside __switch_to(), between that load and the
		 * switch of current, sees the next task's; only when both
		 * share the mm can its memory be read (copy_from_user_nmi()
		 * checks the mm loaded), and then a program reads the other
		 * thread's state for that sample.
		 */
		.tls = x86_fsbase_read_cpu(),
	};

	/* The walker's view of a signal frame is the kernel's own layout. */
	BUILD_BUG_ON(offsetof(struct ucontext, uc_mcontext) +
		     offsetof(struct sigcontext, bp) != VMSTACK_SIGCONTEXT_RBP);
	BUILD_BUG_ON(offsetof(struct sigcontext, sp) - offsetof(struct sigcontext, bp) != 40 ||
		     offsetof(struct sigcontext, ip) - offsetof(struct sigcontext, bp) != 48);
	w.regs[VMSTACK_VM_REG_RAX] = uregs->ax;
	w.regs[VMSTACK_VM_REG_RBX] = uregs->bx;
	w.regs[VMSTACK_VM_REG_RCX] = uregs->cx;
	w.regs[VMSTACK_VM_REG_RDX] = uregs->dx;
	w.regs[VMSTACK_VM_REG_RSI] = uregs->si;
	w.regs[VMSTACK_VM_REG_RDI] = uregs->di;
	w.regs[VMSTACK_VM_REG_R12] = uregs->r12;
	w.regs[VMSTACK_VM_REG_R13] = uregs->r13;
	w.regs[VMSTACK_VM_REG_R14] = uregs->r14;
	w.regs[VMSTACK_VM_REG_R15] = uregs->r15;
	w.regs[VMSTACK_VM_REG_RBP] = uregs->bp;
	/*
	 * Pairs with vmstack_vm_add(): descriptors below nr are complete,
	 * and the set that holds them is in place before the first.
	 */
	w.nr_vms = smp_load_acquire(&p->nr_vms);
	if (w.nr_vms)
		w.vms = READ_ONCE(p->vms)->d;
	/* Anchors proved in another process say nothing of this one. */
	if (pc->jit_mm != current->mm) {
		memset(pc->jit_seen, 0, sizeof(pc->jit_seen));
		pc->jit_mm = current->mm;
	}
	vmstack_walk_user(&w);
	*flags |= w.flags;
	vmstack_count(&pc->stats, VMSTACK_CS_A_UW_LOOKUPS, w.uw_lookups);
	vmstack_count(&pc->stats, VMSTACK_CS_A_UW_HITS, w.uw_hits);
	return w.n;
}

/*
 * May the user stack of @task be read? Not in a 32-bit task (its frames
 * are not what the rules describe), and not once the caller's right to
 * read the process is gone (access.h: a setuid exec, perf detaches its
 * task events then; credentials no longer the caller's). A target stays
 * unread from then until it is added again; a process outside the set
 * (@s->undescribed stands for all of them) is judged at each sample.
 */
static bool vmstack_user_readable(struct vmstack_session *s, struct vmstack_proc *p,
				  struct task_struct *task, struct pt_regs *uregs,
				  struct vmstack_cpu *pc)
{
	if (!user_64bit_mode(uregs)) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_COMPAT, 1);
		return false;
	}
	if (READ_ONCE(p->revoked) || !vmstack_consent_holds(&p->consent, task)) {
		if (p != &s->undescribed)
			WRITE_ONCE(p->revoked, true);
		vmstack_count(&pc->stats, VMSTACK_CS_A_NOT_DUMPABLE, 1);
		return false;
	}
	return true;
}

static u32 vmstack_capture(struct vmstack_session *s, struct vmstack_proc *p,
			   struct vmstack_cpu *pc, struct pt_regs *regs, u64 deadline,
			   u16 *nr_kernel, u16 *nr_user)
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
	if ((s->cfg.stacks & VMSTACK_STACK_USER) && uregs && user_mode(uregs) &&
	    task->mm) {
		if (vmstack_user_readable(s, p, task, uregs, pc))
			nu = vmstack_capture_user(s, p, pc, uregs, deadline, pc->ips + nk,
						  &flags);
		else
			flags |= VMSTACK_SF_NO_USER;
	}
	*nr_kernel = nk;
	*nr_user = nu;
	return flags;
}

/*
 * The time budget: within each VMSTACK_THROTTLE_WINDOW_NS on a CPU, the
 * handler may take VMSTACK_HANDLER_MAX_PERCENT of it; past that, samples
 * are dropped until the window ends (as perf throttles a PMU interrupt
 * that takes too long, but per session and counted).
 */
static bool vmstack_throttled(struct vmstack_cpu *pc, u64 now)
{
	if (now - pc->window_start >= VMSTACK_THROTTLE_WINDOW_NS) {
		pc->window_start = now;
		pc->window_ns = 0;
		return false;
	}
	return pc->window_ns >=
	       VMSTACK_THROTTLE_WINDOW_NS * VMSTACK_HANDLER_MAX_PERCENT / 100;
}

/*
 * A process outside the target set, in a session over every process, a
 * cgroup's, or a command's children (whose events are the command's,
 * inherited: only they fire here): walked with frame pointers only
 * (@s->undescribed has no rules and no VMs). An O(1) test either way:
 * cgroup_is_descendant() compares one ancestor slot, as perf's cgroup
 * events do in this context.
 */
static struct vmstack_proc *vmstack_undescribed(struct vmstack_session *s,
						struct task_struct *task)
{
	if (s->cfg.all || s->cfg.children ||
	    (s->cgrp && vmstack_task_in_cgroup(task, s->cgrp)))
		return &s->undescribed;
	return NULL;
}

void vmstack_overflow(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	struct vmstack_session *s = event->overflow_handler_context;
	/* Asked of the event: a WALL session has both kinds. */
	bool sw = vmstack_event_switches(event);
	struct vmstack_rec_switch_tail *tail;
	struct task_struct *task = current;
	struct vmstack_rec_sample *rec;
	struct vmstack_proc *p;
	struct vmstack_cpu *pc;
	u16 nr_kernel, nr_user, flags;
	bool bad_tail;
	u64 t0, ns, fired;
	u32 size;

	pc = this_cpu_ptr(s->pcpu);
	/* A CPU going idle is not a wait of anyone's (its samples stay). */
	if (unlikely(sw && is_idle_task(task))) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_OTHER, 1);
		return;
	}
	/* By struct pid, not number: a reused PID is not the target. */
	p = vmstack_proc_find(s, task_tgid(task));
	if (!p)
		p = vmstack_undescribed(s, task);
	if (!p) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_OTHER, 1);
		return;
	}

	vmstack_count(&pc->stats, VMSTACK_CS_A_TAKEN, 1);
	if (READ_ONCE(pc->busy)) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_DROPPED, 1);
		return;
	}
	WRITE_ONCE(pc->busy, 1);
	barrier();
	/* local_clock() is NMI-safe; the handler measures itself (bench). */
	t0 = local_clock();
	/* The record's time: a wait starts here, not after the walk. */
	fired = ktime_get_mono_fast_ns();
	if (vmstack_throttled(pc, t0)) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_THROTTLED, 1);
		vmstack_count(&pc->stats, VMSTACK_CS_A_DROPPED, 1);
		goto unbusy;
	}

	/* A switch-out's walk holds the runqueue lock: a shorter one. */
	flags = vmstack_capture(s, p, pc, regs,
				t0 + (sw ? VMSTACK_SWITCH_WALK_MAX_NS : VMSTACK_WALK_MAX_NS),
				&nr_kernel, &nr_user);
	/* Still on a runqueue: preempted or yielding, not waiting. */
	if (sw && vmstack_task_runnable(task))
		flags |= VMSTACK_SF_PREEMPTED;
	if (p == &s->undescribed)
		flags |= VMSTACK_SF_UNDESCRIBED;
	if (flags & (VMSTACK_SF_KERNEL_TRUNC | VMSTACK_SF_USER_TRUNC))
		vmstack_count(&pc->stats, VMSTACK_CS_A_TRUNCATED, 1);
	if (flags & VMSTACK_SF_USER_FAULT)
		vmstack_count(&pc->stats, VMSTACK_CS_A_USER_FAULTS, 1);
	if (flags & VMSTACK_SF_VM_BROKEN)
		vmstack_count(&pc->stats, VMSTACK_CS_A_VM_ERRORS, 1);
	if (flags & VMSTACK_SF_VM_UNVERIFIED)
		vmstack_count(&pc->stats, VMSTACK_CS_A_VM_UNVERIFIED, 1);
	if (flags & VMSTACK_SF_BUDGET)
		vmstack_count(&pc->stats, VMSTACK_CS_A_BUDGET, 1);

	size = sizeof(*rec) + (nr_kernel + nr_user) * sizeof(u64);
	if (sw)
		size += sizeof(*tail);
	rec = vmstack_ring_reserve(&pc->ring, size, &bad_tail);
	if (!rec) {
		if (bad_tail)
			vmstack_count(&pc->stats, VMSTACK_CS_A_BAD_TAIL, 1);
		vmstack_count(&pc->stats, VMSTACK_CS_A_DROPPED, 1);
		goto out;
	}
	rec->hdr.type = sw ? VMSTACK_REC_SWITCH : VMSTACK_REC_SAMPLE;
	rec->hdr.flags = flags;
	rec->hdr.size = size;
	rec->time_ns = fired;
	rec->pid = task_tgid_nr_ns(task, s->pid_ns);
	rec->tid = task_pid_nr_ns(task, s->pid_ns);
	rec->cpu = smp_processor_id();
	rec->nr_kernel = nr_kernel;
	rec->nr_user = nr_user;
	memcpy(rec->ips, pc->ips, (nr_kernel + nr_user) * sizeof(u64));
	if (sw) {
		/*
		 * The scheduler charged the time run so far (update_curr()
		 * in pick_next_task()) and counted this switch before
		 * switching perf's context out, which calls us.
		 */
		tail = (struct vmstack_rec_switch_tail *)(rec->ips + nr_kernel + nr_user);
		tail->run_ns = task->se.sum_exec_runtime;
		tail->switches = task->nvcsw + task->nivcsw;
	}
	vmstack_ring_commit(&pc->ring, size);
	vmstack_count(&pc->stats, VMSTACK_CS_A_WRITTEN, 1);
	vmstack_count(&pc->stats, VMSTACK_CS_A_FRAMES, nr_kernel + nr_user);
out:
	ns = local_clock() - t0;
	pc->window_ns += ns;
	vmstack_count(&pc->stats, VMSTACK_CS_A_HANDLER_NS, ns);
	pc->stats.hist[vmstack_hist_bucket(ns)]++;
unbusy:
	barrier();
	WRITE_ONCE(pc->busy, 0);
}
