// SPDX-License-Identifier: GPL-2.0
/*
 * Who may start a session and whose stacks it may read, decided from
 * the caller record netlink.c fills (access.h). Perf events created in
 * the kernel skip perf_event_open()'s checks, so the checks are ours:
 * perf's rules, by hand where the kernel does not export them.
 */
#include <linux/cred.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include "access.h"

/*
 * The capabilities are against the initial user namespace (netlink.c
 * fills them so): root in a user namespace of its own is refused. The
 * right to read the target is checked once it is found.
 */
int vmstack_may_start(const struct vmstack_caller *c, struct netlink_ext_ack *extack)
{
	if (!c->sys_admin && !c->perfmon) {
		NL_SET_ERR_MSG(extack,
			       "needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace");
		return -EPERM;
	}
	return 0;
}

bool vmstack_may_read_any(const struct vmstack_caller *c)
{
	return c->sys_admin || c->sys_ptrace;
}

/* Who may profile @task: perf's rule for a task event, by hand. */
static int vmstack_may_profile(const struct vmstack_caller *c, struct task_struct *task,
			       struct netlink_ext_ack *extack)
{
	const struct cred *cred = c->cred, *tcred;
	bool same, dumpable;

	if (vmstack_may_read_any(c))
		return 0;
	/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS) is not exported. */
	rcu_read_lock();
	tcred = __task_cred(task);
	same = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	rcu_read_unlock();
	task_lock(task);
	dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	if (same && dumpable)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "may not read the target's memory: needs CAP_SYS_PTRACE, or the target's own user and a dumpable target");
	return -EPERM;
}

/* The target's thread group, if the caller may profile it. */
struct pid *vmstack_find_target(const struct vmstack_caller *c, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				bool *watch_dumpable)
{
	bool privileged, dumpable;
	struct task_struct *task;
	struct pid *tgid = NULL;

	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	*err = -ESRCH;
	if (!task) {
		NL_SET_ERR_MSG(extack, "no such process");
		return NULL;
	}
	if (task->flags & PF_KTHREAD) {
		NL_SET_ERR_MSG(extack, "target is a kernel thread");
	} else {
		*err = vmstack_may_profile(c, task, extack);
		if (!*err)
			tgid = get_pid(task_tgid(task));
		privileged = vmstack_may_read_any(c);
		task_lock(task);
		dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
		task_unlock(task);
		*watch_dumpable = !privileged || dumpable;
	}
	put_task_struct(task);
	return tgid;
}
