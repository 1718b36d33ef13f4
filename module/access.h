/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may do what (access.c). netlink.c fills a caller record once for
 * each request whose answer depends on who asks (SESSION_START,
 * TARGET_ADD); every decision is taken from it here. Nothing below
 * netlink.c asks for a capability: a request that names its session by
 * a descriptor needs none beyond holding it.
 */
#ifndef _VMSTACK_ACCESS_H
#define _VMSTACK_ACCESS_H

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct netlink_ext_ack;
struct pid;
struct user_namespace;

struct vmstack_caller {
	/* current's: the request runs in the sender's context. */
	const struct cred *cred;
	/*
	 * netlink_capable(): in the initial user namespace, for the caller
	 * and for whoever opened the socket.
	 */
	bool sys_admin;
	bool perfmon;
	bool sys_ptrace;
	/* capable(): the rings' locked memory is not held to RLIMIT_MEMLOCK. */
	bool ipc_lock;
	/* The network namespace the request came in from (its cookie). */
	u64 net_cookie;
};

/*
 * What the handler checks, sample by sample, before it reads a process's
 * memory (vmstack_consent_holds()). Decided when the process is added
 * (vmstack_find_target()), from who asked and what the process was then.
 */
struct vmstack_consent {
	/* Not once it stops being dumpable (a setuid exec). */
	bool watch_dumpable;
	/*
	 * A caller without CAP_SYS_PTRACE read it as its own user's: the
	 * target's real, effective and saved ids must stay @uid and @gid,
	 * its user namespace @ns, its permitted capabilities within @caps.
	 */
	bool watch_creds;
	kuid_t uid;
	kgid_t gid;
	struct user_namespace *ns;	/* held (get_user_ns) while watched */
	kernel_cap_t caps;
};

/*
 * May the memory of @task, one of the processes @c was decided for, be
 * read now? In the sample handler (NMI or hard interrupt): plain reads
 * of @task's mm and of its objective credentials, which RCU keeps while
 * the handler runs. ptrace_may_access() and the LSM hooks cannot be
 * called there; this is the part of them decided at attach that a
 * process can change afterwards (an exec, setuid(), capset()).
 */
static inline bool vmstack_consent_holds(const struct vmstack_consent *c,
					 struct task_struct *task)
{
	const struct cred *tc;

	if (c->watch_dumpable && get_dumpable(task->mm) != SUID_DUMP_USER)
		return false;
	if (!c->watch_creds)
		return true;
	tc = rcu_dereference_raw(task->real_cred);
	return uid_eq(tc->uid, c->uid) && uid_eq(tc->euid, c->uid) &&
	       uid_eq(tc->suid, c->uid) && gid_eq(tc->gid, c->gid) &&
	       gid_eq(tc->egid, c->gid) && gid_eq(tc->sgid, c->gid) &&
	       tc->user_ns == c->ns && cap_issubset(tc->cap_permitted, c->caps);
}

/* What vmstack_find_target() took, given back (a process leaves the set). */
void vmstack_consent_release(struct vmstack_consent *c);

/* May @c start a session at all (perf's right to sample)? */
int vmstack_may_start(const struct vmstack_caller *c, struct netlink_ext_ack *extack);
/* May @c read any process's memory, whoever runs it? */
bool vmstack_may_read_any(const struct vmstack_caller *c);
/*
 * The thread group of process @nr (in the caller's namespace) if @c may
 * profile it, else NULL and why in @err and @extack; @consent: what the
 * handler must check before each read (released with the process).
 */
struct pid *vmstack_find_target(const struct vmstack_caller *c, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				struct vmstack_consent *consent);

#endif /* _VMSTACK_ACCESS_H */
