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

#include <linux/types.h>

struct cred;
struct netlink_ext_ack;
struct pid;

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

/* May @c start a session at all (perf's right to sample)? */
int vmstack_may_start(const struct vmstack_caller *c, struct netlink_ext_ack *extack);
/* May @c read any process's memory, whoever runs it? */
bool vmstack_may_read_any(const struct vmstack_caller *c);
/*
 * The thread group of process @nr (in the caller's namespace) if @c may
 * profile it, else NULL and why in @err and @extack; @watch_dumpable:
 * whether the handler must stop reading it once it is not dumpable.
 */
struct pid *vmstack_find_target(const struct vmstack_caller *c, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				bool *watch_dumpable);

#endif /* _VMSTACK_ACCESS_H */
