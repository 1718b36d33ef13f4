// SPDX-License-Identifier: GPL-2.0
/*
 * Who may start a session and whose stacks it may read, decided from
 * the caller record netlink.c fills (access.h). Perf events created in
 * the kernel skip perf_event_open()'s checks, so the checks are ours:
 * perf's rules, by hand where the kernel does not export them.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>
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

/*
 * Who may profile @task: perf's rule for a task event,
 * ptrace_may_access(PTRACE_MODE_READ_REALCREDS), by hand (not exported):
 * the caller's real ids are all of the target's, and commoncap's part,
 * the same user namespace and the target's permitted capabilities within
 * the caller's (a daemon of the same user with a capability the caller
 * lacks is not the caller's to read). The LSM part of it
 * (security_ptrace_access_check()) is not exported either: design.md.
 * @consent: what the handler re-checks at each sample (access.h).
 */
static int vmstack_may_profile(const struct vmstack_caller *c, struct task_struct *task,
			       struct vmstack_consent *consent, struct netlink_ext_ack *extack)
{
	const struct cred *cred = c->cred, *tcred;
	bool same, within, dumpable;

	task_lock(task);
	dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	/* A setuid exec ends the reading in any case, as perf detaches. */
	*consent = (struct vmstack_consent){ .watch_dumpable = dumpable };
	if (vmstack_may_read_any(c))
		return 0;
	rcu_read_lock();
	tcred = __task_cred(task);
	same = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	within = tcred->user_ns == cred->user_ns &&
		 cap_issubset(tcred->cap_permitted, cred->cap_permitted);
	rcu_read_unlock();
	if (!same || !dumpable) {
		NL_SET_ERR_MSG(extack,
			       "may not read the target's memory: needs CAP_SYS_PTRACE, or the target's own user and a dumpable target");
		return -EPERM;
	}
	if (!within) {
		NL_SET_ERR_MSG(extack,
			       "may not read the target's memory: it has capabilities the caller lacks (or another user namespace): needs CAP_SYS_PTRACE");
		return -EPERM;
	}
	consent->watch_dumpable = true;
	consent->watch_creds = true;
	consent->uid = cred->uid;
	consent->gid = cred->gid;
	consent->ns = get_user_ns(cred->user_ns);
	consent->caps = cred->cap_permitted;
	return 0;
}

void vmstack_consent_release(struct vmstack_consent *c)
{
	if (c->watch_creds)
		put_user_ns(c->ns);
	c->watch_creds = false;
}

/* The target's thread group, if the caller may profile it. */
struct pid *vmstack_find_target(const struct vmstack_caller *c, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				struct vmstack_consent *consent)
{
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
		*err = vmstack_may_profile(c, task, consent, extack);
		if (!*err)
			tgid = get_pid(task_tgid(task));
	}
	put_task_struct(task);
	return tgid;
}
