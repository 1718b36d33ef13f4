// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family: one strict policy per command, one handler
 * per command, and every refusal explained through the extended ack.
 * Requests run in the sender's context: SESSION_START installs the
 * session's file in the sender's table, and every other command finds its
 * session through a descriptor in that table. The requests whose answer
 * depends on who asks get a record of the caller, filled here: no socket
 * buffer goes further.
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/netlink.h>
#include "access.h"
#include "compat.h"
#include "events.h"
#include "netlink.h"
#include "netlink_stats.h"
#include "session.h"
#include "target.h"
#include "unwind_table.h"

static struct genl_family vmstack_family;

/* Bounds that do not fit the s16 of NLA_POLICY_RANGE. */
static struct netlink_range_validation vmstack_freq_range = {
	.min = VMSTACK_MIN_FREQ,
	.max = VMSTACK_MAX_FREQ,
};

static struct netlink_range_validation vmstack_uw_rows_range = {
	.min = 1,
	.max = VMSTACK_UW_MAX_ROWS,
};

/*
 * One policy per command: an attribute that is not in its command's
 * policy is refused (strict validation rejects NLA_UNSPEC entries and
 * types past maxattr), so a request never carries something we ignore.
 */
static const struct nla_policy vmstack_start_policy[VMSTACK_A_CHILDREN + 1] = {
	[VMSTACK_A_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[VMSTACK_A_FREQ] = NLA_POLICY_FULL_RANGE(NLA_U32, &vmstack_freq_range),
	[VMSTACK_A_EVENT] = NLA_POLICY_MAX(NLA_U32, VMSTACK_EVENT_MAX),
	[VMSTACK_A_STACKS] = NLA_POLICY_RANGE(NLA_U32, 1, VMSTACK_STACK_ALL),
	[VMSTACK_A_MAX_DEPTH] = NLA_POLICY_RANGE(NLA_U32, 1, VMSTACK_MAX_DEPTH),
	[VMSTACK_A_RING_PAGES] = NLA_POLICY_RANGE(NLA_U32,
						  VMSTACK_MIN_RING_PAGES,
						  VMSTACK_MAX_RING_PAGES),
	[VMSTACK_A_PAUSED] = { .type = NLA_FLAG },
	[VMSTACK_A_TASK_EVENTS] = { .type = NLA_FLAG },
	[VMSTACK_A_ALL] = { .type = NLA_FLAG },
	[VMSTACK_A_CGROUP_FD] = { .type = NLA_U32 },
	[VMSTACK_A_CHILDREN] = { .type = NLA_FLAG },
};

/* SESSION_STATS, SESSION_STOP, SESSION_RESUME. */
static const struct nla_policy vmstack_session_policy[VMSTACK_A_SESSION_FD + 1] = {
	[VMSTACK_A_SESSION_FD] = { .type = NLA_U32 },
};

static const struct nla_policy vmstack_unwind_policy[VMSTACK_A_UW_KEY + 1] = {
	[VMSTACK_A_SESSION_FD] = { .type = NLA_U32 },
	[VMSTACK_A_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[VMSTACK_A_UW_START] = { .type = NLA_U64 },
	[VMSTACK_A_UW_END] = { .type = NLA_U64 },
	[VMSTACK_A_UW_ROWS] = { .type = NLA_BINARY,
				.len = VMSTACK_UW_CHUNK_ROWS *
				       sizeof(struct vmstack_uw_row) },
	[VMSTACK_A_UW_TOTAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &vmstack_uw_rows_range),
	[VMSTACK_A_UW_FIRST] = { .type = NLA_U32 },
	[VMSTACK_A_UW_KEY] = NLA_POLICY_MIN(NLA_U64, 1),
};

/*
 * GET_STATUS takes nothing. An explicit policy with one refused type (and
 * strict validation refusing types past it) says so on every kernel; 6.1
 * would do the same for a command without a policy, 5.15 would ignore
 * the attributes.
 */
static const struct nla_policy vmstack_no_attrs_policy[VMSTACK_A_UNSPEC + 2] = {
	[VMSTACK_A_UNSPEC + 1] = { .type = NLA_REJECT },
};

static const struct nla_policy vmstack_vm_policy[VMSTACK_A_VM_DESC + 1] = {
	[VMSTACK_A_SESSION_FD] = { .type = NLA_U32 },
	[VMSTACK_A_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[VMSTACK_A_VM_DESC] = NLA_POLICY_RANGE(NLA_BINARY, VMSTACK_VM4_DESC_MIN_SIZE,
					       VMSTACK_VM4_DESC_MAX_SIZE),
};

/* TARGET_ADD, TARGET_DEL. */
static const struct nla_policy vmstack_target_policy[VMSTACK_A_SESSION_FD + 1] = {
	[VMSTACK_A_PID] = NLA_POLICY_MIN(NLA_U32, 1),
	[VMSTACK_A_SESSION_FD] = { .type = NLA_U32 },
};

/*
 * Who sent @skb, for access.c. netlink_capable() is against the initial
 * user namespace and also requires that whoever opened the socket had
 * the capability.
 */
static void vmstack_nl_caller(struct sk_buff *skb, struct vmstack_caller *c)
{
	*c = (struct vmstack_caller){
		.cred = current_cred(),
		.sys_admin = netlink_capable(skb, CAP_SYS_ADMIN),
		.perfmon = netlink_capable(skb, CAP_PERFMON),
		.sys_ptrace = netlink_capable(skb, CAP_SYS_PTRACE),
		.ipc_lock = capable(CAP_IPC_LOCK),
		.net_cookie = sock_net(skb->sk)->net_cookie,
	};
}

static void *vmstack_reply_start(struct genl_info *info, struct sk_buff **msgp,
				 size_t size)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);
	void *hdr;

	if (!msg)
		return NULL;
	hdr = genlmsg_put_reply(msg, info, &vmstack_family, 0, info->genlhdr->cmd);
	if (!hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	*msgp = msg;
	return hdr;
}

static int vmstack_nl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	hdr = vmstack_reply_start(info, &msg, NLMSG_GOODSIZE);
	if (!hdr)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_ABI_MAJOR, VMSTACK_ABI_MAJOR) ||
	    nla_put_u32(msg, VMSTACK_A_ABI_MINOR, VMSTACK_ABI_MINOR) ||
	    nla_put_string(msg, VMSTACK_A_MODULE_VERSION, VMSTACK_VERSION) ||
	    nla_put_u32(msg, VMSTACK_A_NR_SESSIONS,
			vmstack_nr_sessions(genl_info_net(info)->net_cookie))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static u32 vmstack_attr_u32(struct genl_info *info, int attr, u32 dflt)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : dflt;
}

static int vmstack_nl_session_start(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_caller caller;
	struct vmstack_session_cfg cfg;
	struct vmstack_session *s;
	struct sk_buff *msg;
	struct file *file;
	void *hdr;
	int fd, err;

	cfg.all = nla_get_flag(info->attrs[VMSTACK_A_ALL]);
	cfg.cgroup = !!info->attrs[VMSTACK_A_CGROUP_FD];
	cfg.task_events = nla_get_flag(info->attrs[VMSTACK_A_TASK_EVENTS]);
	cfg.children = nla_get_flag(info->attrs[VMSTACK_A_CHILDREN]);
	/* One kind of target: a process, every process, or a cgroup's. */
	if (!!info->attrs[VMSTACK_A_PID] + cfg.all + cfg.cgroup != 1) {
		NL_SET_ERR_MSG(info->extack, "give one of PID, ALL and CGROUP_FD");
		return -EINVAL;
	}
	if (cfg.task_events && !info->attrs[VMSTACK_A_PID]) {
		NL_SET_ERR_MSG(info->extack, "TASK_EVENTS samples one process: give PID");
		return -EINVAL;
	}
	if (cfg.children && !cfg.task_events) {
		NL_SET_ERR_MSG(info->extack, "CHILDREN goes with TASK_EVENTS");
		return -EINVAL;
	}
	cfg.pid = vmstack_attr_u32(info, VMSTACK_A_PID, 0);
	cfg.cgroup_fd = vmstack_attr_u32(info, VMSTACK_A_CGROUP_FD, 0);
	cfg.freq = vmstack_attr_u32(info, VMSTACK_A_FREQ, VMSTACK_DEFAULT_FREQ);
	cfg.event = vmstack_attr_u32(info, VMSTACK_A_EVENT,
				     VMSTACK_EVENT_CPU_CLOCK);
	cfg.stacks = vmstack_attr_u32(info, VMSTACK_A_STACKS,
				      VMSTACK_STACK_ALL);
	cfg.max_depth = vmstack_attr_u32(info, VMSTACK_A_MAX_DEPTH,
					 VMSTACK_DEFAULT_MAX_DEPTH);
	cfg.ring_pages = vmstack_attr_u32(info, VMSTACK_A_RING_PAGES,
					  VMSTACK_DEFAULT_RING_PAGES);
	cfg.paused = nla_get_flag(info->attrs[VMSTACK_A_PAUSED]);

	hdr = vmstack_reply_start(info, &msg, NLMSG_GOODSIZE);
	if (!hdr)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		err = fd;
		goto err_msg;
	}
	/* The caller's rights are decided below (access.c): they depend on the target. */
	vmstack_nl_caller(skb, &caller);
	err = vmstack_session_start(&caller, &cfg, info->extack, &s, &file);
	if (err)
		goto err_fd;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_ID, s->id) ||
	    nla_put_u32(msg, VMSTACK_A_SESSION_FD, fd) ||
	    nla_put_u32(msg, VMSTACK_A_NR_CPUS, s->nr_rings) ||
	    nla_put_u32(msg, VMSTACK_A_RING_PAGES, s->cfg.ring_pages) ||
	    nla_put_u32(msg, VMSTACK_A_FREQ, s->cfg.freq)) {
		err = -EMSGSIZE;
		fput(file);
		goto err_fd;
	}
	genlmsg_end(msg, hdr);
	/*
	 * The request is handled in the sender's context, so the fd lands in
	 * the caller's table. Should the reply then be lost, the caller still
	 * owns the fd and its exit ends the session.
	 */
	fd_install(fd, file);
	return genlmsg_reply(msg, info);

err_fd:
	put_unused_fd(fd);
err_msg:
	nlmsg_free(msg);
	return err;
}

/* The session a request names by SESSION_FD, its file held; or NULL. */
static struct vmstack_session *vmstack_nl_session(struct genl_info *info,
						  struct file **filep)
{
	if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_SESSION_FD))
		return NULL;
	return vmstack_session_get(nla_get_u32(info->attrs[VMSTACK_A_SESSION_FD]),
				   filep, info->extack);
}

static int vmstack_nl_session_stats(struct sk_buff *skb, struct genl_info *info)
{
	u64 sum[VMSTACK_NR_COUNTERS];
	struct vmstack_session *s;
	struct sk_buff *msg;
	struct file *file;
	size_t size;
	void *hdr;
	int err = -EMSGSIZE;

	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	size = 2 * nla_total_size(sizeof(u32)) + nla_total_size(0) +
	       VMSTACK_NR_COUNTERS * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(sizeof(u64) * VMSTACK_HIST_BUCKETS);
	hdr = vmstack_reply_start(info, &msg, size);
	if (!hdr) {
		fput(file);
		return -ENOMEM;
	}
	vmstack_sum_counters(s, -1, sum);
	if (nla_put_u32(msg, VMSTACK_A_SESSION_ID, s->id) ||
	    nla_put_u32(msg, VMSTACK_A_NR_CPUS, s->nr_rings) ||
	    vmstack_put_counters(msg, VMSTACK_A_COUNTERS, -1, sum) ||
	    vmstack_put_hist(msg, s))
		goto err;
	fput(file);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	fput(file);
	nlmsg_free(msg);
	return err;
}

/*
 * SESSION_STATS with NLM_F_DUMP: every CPU's counters, in as many
 * messages as they take. The session is found where the request came in
 * (start, in the sender's context) and held until done.
 */
static int vmstack_nl_stats_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = vmstack_dump_attrs(genl_dumpit_info(cb));
	struct file *file;

	if (!attrs[VMSTACK_A_SESSION_FD]) {
		NL_SET_ERR_MSG(cb->extack, "SESSION_FD missing");
		return -EINVAL;
	}
	if (!vmstack_session_get(nla_get_u32(attrs[VMSTACK_A_SESSION_FD]),
				 &file, cb->extack))
		return -EBADF;
	cb->args[0] = (long)file;
	cb->args[1] = 0;		/* the next CPU */
	return 0;
}

static int vmstack_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vmstack_session *s = ((struct file *)cb->args[0])->private_data;
	u64 v[VMSTACK_NR_COUNTERS];
	unsigned int cpu;
	void *hdr;

	for (cpu = cb->args[1]; cpu < s->nr_rings; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &vmstack_family, NLM_F_MULTI,
				  VMSTACK_CMD_SESSION_STATS);
		if (!hdr)
			break;
		vmstack_sum_counters(s, cpu, v);
		if (vmstack_put_counters(skb, VMSTACK_A_CPU_STATS, cpu, v)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[1] = cpu;
	return skb->len;
}

static int vmstack_nl_stats_done(struct netlink_callback *cb)
{
	if (cb->args[0])
		fput((struct file *)cb->args[0]);
	return 0;
}

static int vmstack_nl_session_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_session *s;
	struct file *file;

	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	vmstack_events_stop(s);
	fput(file);
	return 0;
}

static int vmstack_nl_session_resume(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_session *s;
	struct file *file;
	int err;

	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	err = vmstack_events_resume(s, info->extack);
	fput(file);
	return err;
}

static int vmstack_nl_unwind_add(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_uw_chunk c;
	struct vmstack_session *s;
	struct vmstack_proc *p;
	struct sk_buff *msg;
	struct nlattr *rows;
	struct file *file;
	bool place;
	void *hdr;
	u64 bytes;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_UW_START) ||
	    GENL_REQ_ATTR_CHECK(info, VMSTACK_A_UW_END))
		return -EINVAL;
	c.start = nla_get_u64(info->attrs[VMSTACK_A_UW_START]);
	c.end = nla_get_u64(info->attrs[VMSTACK_A_UW_END]);
	c.key = info->attrs[VMSTACK_A_UW_KEY] ? nla_get_u64(info->attrs[VMSTACK_A_UW_KEY]) : 0;
	/* A key and no rows: place the rows uploaded under that key. */
	place = c.key && !info->attrs[VMSTACK_A_UW_ROWS] &&
		!info->attrs[VMSTACK_A_UW_TOTAL] && !info->attrs[VMSTACK_A_UW_FIRST];
	if (!place) {
		if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_UW_TOTAL) ||
		    GENL_REQ_ATTR_CHECK(info, VMSTACK_A_UW_FIRST) ||
		    GENL_REQ_ATTR_CHECK(info, VMSTACK_A_UW_ROWS))
			return -EINVAL;
		rows = info->attrs[VMSTACK_A_UW_ROWS];
		if (!nla_len(rows) || nla_len(rows) % sizeof(struct vmstack_uw_row)) {
			NL_SET_ERR_MSG_ATTR(info->extack, rows,
					    "unwind rows: not a whole number of rows");
			return -EINVAL;
		}
		c.total = nla_get_u32(info->attrs[VMSTACK_A_UW_TOTAL]);
		c.first = nla_get_u32(info->attrs[VMSTACK_A_UW_FIRST]);
		c.nrows = nla_len(rows) / sizeof(struct vmstack_uw_row);
		c.rows = nla_data(rows);
	}

	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	hdr = vmstack_reply_start(info, &msg, NLMSG_GOODSIZE);
	if (!hdr) {
		fput(file);
		return -ENOMEM;
	}
	mutex_lock(&s->lock);
	p = vmstack_target_get(s, vmstack_attr_u32(info, VMSTACK_A_PID, 0), info->extack);
	if (!p)
		err = -ENOENT;
	else if (place)
		err = vmstack_uw_place(s, p, c.start, c.end, c.key, info->extack);
	else
		err = vmstack_uw_add(s, p, &c, info->extack);
	bytes = s->uw_bytes;
	mutex_unlock(&s->lock);
	fput(file);
	if (err || nla_put_u64_64bit(msg, VMSTACK_A_UW_BYTES, bytes,
				     VMSTACK_A_PAD)) {
		nlmsg_free(msg);
		return err ? err : -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int vmstack_nl_vm_add(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_session *s;
	struct vmstack_proc *p;
	struct nlattr *desc;
	struct file *file;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_VM_DESC))
		return -EINVAL;
	desc = info->attrs[VMSTACK_A_VM_DESC];
	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	mutex_lock(&s->lock);
	p = vmstack_target_get(s, vmstack_attr_u32(info, VMSTACK_A_PID, 0), info->extack);
	err = p ? vmstack_vm_add(s, p, nla_data(desc), nla_len(desc), info->extack) : -ENOENT;
	mutex_unlock(&s->lock);
	fput(file);
	return err;
}

static int vmstack_nl_target_add(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_caller caller;
	struct vmstack_session *s;
	struct file *file;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_PID))
		return -EINVAL;
	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	vmstack_nl_caller(skb, &caller);
	err = vmstack_target_add(s, &caller, nla_get_u32(info->attrs[VMSTACK_A_PID]),
				 info->extack);
	fput(file);
	return err;
}

static int vmstack_nl_target_del(struct sk_buff *skb, struct genl_info *info)
{
	struct vmstack_session *s;
	struct file *file;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VMSTACK_A_PID))
		return -EINVAL;
	s = vmstack_nl_session(info, &file);
	if (!s)
		return -EBADF;
	err = vmstack_target_del(s, nla_get_u32(info->attrs[VMSTACK_A_PID]), info->extack);
	fput(file);
	return err;
}

#define VMSTACK_OP(c, fn, pol) {				\
	.cmd = (c),						\
	.doit = (fn),						\
	.policy = (pol),					\
	.maxattr = ARRAY_SIZE(pol) - 1,				\
}

static const struct genl_ops vmstack_ops[] = {
	VMSTACK_OP(VMSTACK_CMD_GET_STATUS, vmstack_nl_get_status,
		   vmstack_no_attrs_policy),
	VMSTACK_OP(VMSTACK_CMD_SESSION_START, vmstack_nl_session_start,
		   vmstack_start_policy),
	{
		.cmd = VMSTACK_CMD_SESSION_STATS,
		.doit = vmstack_nl_session_stats,
		.start = vmstack_nl_stats_start,
		.dumpit = vmstack_nl_stats_dump,
		.done = vmstack_nl_stats_done,
		.policy = vmstack_session_policy,
		.maxattr = ARRAY_SIZE(vmstack_session_policy) - 1,
	},
	VMSTACK_OP(VMSTACK_CMD_SESSION_STOP, vmstack_nl_session_stop,
		   vmstack_session_policy),
	VMSTACK_OP(VMSTACK_CMD_UNWIND_ADD, vmstack_nl_unwind_add,
		   vmstack_unwind_policy),
	VMSTACK_OP(VMSTACK_CMD_SESSION_RESUME, vmstack_nl_session_resume,
		   vmstack_session_policy),
	VMSTACK_OP(VMSTACK_CMD_VM_ADD, vmstack_nl_vm_add, vmstack_vm_policy),
	VMSTACK_OP(VMSTACK_CMD_TARGET_ADD, vmstack_nl_target_add, vmstack_target_policy),
	VMSTACK_OP(VMSTACK_CMD_TARGET_DEL, vmstack_nl_target_del, vmstack_target_policy),
};

/*
 * resv_start_op 0 (6.1 and later): every command is held to the current
 * rules (reserved header field 0, no unknown nlmsg flags).
 *
 * parallel_ops: requests do not take the generic netlink mutex, which
 * every family without it shares (nlctrl's lookups included): a session
 * start allocating its rings, an upload of a 48 MiB table, hotplug
 * registration would stall them all. The module's own locks serialize
 * what must be: the session list, ids and per-user counts under
 * vmstack_sessions_lock, each session's events, targets, rules and VMs
 * under its s->lock, the accounts under theirs; a session is reached
 * only through a descriptor its caller holds (fget), so it cannot be
 * freed under a request, and statistics are per-CPU counters read
 * without a lock. Unregistering the family waits for requests in flight.
 */
static struct genl_family vmstack_family __ro_after_init = {
	.name = VMSTACK_GENL_NAME,
	.version = VMSTACK_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = vmstack_ops,
	.n_ops = ARRAY_SIZE(vmstack_ops),
	VMSTACK_GENL_RESV_START_OP
};

int __init vmstack_netlink_init(void)
{
	return genl_register_family(&vmstack_family);
}

void vmstack_netlink_exit(void)
{
	genl_unregister_family(&vmstack_family);
}
