// SPDX-License-Identifier: GPL-2.0
/* Client of the vmstack generic netlink family. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <linux/netlink.h>

#include "abi.h"
#include "vmstack_nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct vmstack_nl {
	struct nl_sock *sk;
	int family;
};

/* State of one request: what the callbacks found. */
struct vmstack_req {
	int error;
	int done;
	char *err_msg;
	size_t err_len;
	int (*parse)(struct nlattr **tb, void *arg);
	void *arg;
};

static struct nla_policy vmstack_reply_policy[VMSTACK_A_MAX + 1] = {
	[VMSTACK_A_ABI_MAJOR] = { .type = NLA_U32 },
	[VMSTACK_A_ABI_MINOR] = { .type = NLA_U32 },
	[VMSTACK_A_MODULE_VERSION] = { .type = NLA_STRING },
	[VMSTACK_A_NR_SESSIONS] = { .type = NLA_U32 },
	[VMSTACK_A_SESSION_ID] = { .type = NLA_U32 },
	[VMSTACK_A_SESSION_FD] = { .type = NLA_U32 },
	[VMSTACK_A_NR_CPUS] = { .type = NLA_U32 },
	[VMSTACK_A_RING_PAGES] = { .type = NLA_U32 },
	[VMSTACK_A_FREQ] = { .type = NLA_U32 },
	[VMSTACK_A_COUNTERS] = { .type = NLA_NESTED },
	[VMSTACK_A_CPU_STATS] = { .type = NLA_NESTED },
	[VMSTACK_A_HANDLER_HIST] = { .minlen = 8 * VMSTACK_HIST_BUCKETS },
	[VMSTACK_A_UW_BYTES] = { .type = NLA_U64 },
};

static void set_msg(char *buf, size_t len, const char *fmt, const char *s)
{
	if (buf && len)
		snprintf(buf, len, fmt, s);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct vmstack_req *req = arg;
	struct nlattr *tb[VMSTACK_A_MAX + 1];
	int err;

	err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, VMSTACK_A_MAX,
			    vmstack_reply_policy);
	if (err < 0) {
		req->error = -EPROTO;
		set_msg(req->err_msg, req->err_len, "%s",
			"malformed reply from vmstack.ko");
		return NL_STOP;
	}
	if (req->parse) {
		err = req->parse(tb, req->arg);
		if (err)
			req->error = err;
	}
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct vmstack_req *req = arg;

	(void)msg;
	req->done = 1;
	return NL_STOP;
}

/* The kernel's explanation, from the TLVs of an extended ack. */
static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct vmstack_req *req = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	(void)nla;
	req->error = e->error;
	req->done = 1;
	set_msg(req->err_msg, req->err_len, "%s", strerror(-e->error));
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, NULL) < 0)
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG])
		set_msg(req->err_msg, req->err_len, "%s",
			nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int vmstack_transact(struct vmstack_nl *nl, struct nl_msg *msg,
			    struct vmstack_req *req)
{
	struct nl_cb *cb;
	int err;

	err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		set_msg(req->err_msg, req->err_len, "netlink send: %s",
			nl_geterror(err));
		return -EIO;
	}
	cb = nl_cb_alloc(NL_CB_CUSTOM);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, req);
	/* A dump ends with NLMSG_DONE. */
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, req);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, req);
	while (!req->done) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0 && !req->done) {
			set_msg(req->err_msg, req->err_len, "netlink receive: %s",
				nl_geterror(err));
			req->error = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return req->error;
}

static struct nl_msg *vmstack_msg_flags(struct vmstack_nl *nl, uint8_t cmd,
					size_t size, int flags)
{
	struct nl_msg *msg = nlmsg_alloc_size(size);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags, cmd, VMSTACK_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

static struct nl_msg *vmstack_msg_size(struct vmstack_nl *nl, uint8_t cmd,
				       size_t size)
{
	return vmstack_msg_flags(nl, cmd, size, 0);
}

static struct nl_msg *vmstack_msg(struct vmstack_nl *nl, uint8_t cmd)
{
	return vmstack_msg_size(nl, cmd, 4096);
}

int vmstack_nl_open(struct vmstack_nl **nlp, char *err_msg, size_t len)
{
	struct vmstack_nl *nl = calloc(1, sizeof(*nl));
	int one = 1;

	if (!nl)
		return -ENOMEM;
	nl->sk = nl_socket_alloc();
	if (!nl->sk || genl_connect(nl->sk) < 0) {
		set_msg(err_msg, len, "%s", "cannot open a generic netlink socket");
		vmstack_nl_close(nl);
		return -EIO;
	}
	/* Errors carry the kernel's explanation; keep acks short. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	/* Stats replies carry a 4 KiB histogram: let libnl size its reads. */
	nl_socket_enable_msg_peek(nl->sk);
	nl->family = genl_ctrl_resolve(nl->sk, VMSTACK_GENL_NAME);
	if (nl->family < 0) {
		set_msg(err_msg, len, "%s",
			"the vmstack kernel module is not loaded (insmod vmstack.ko)");
		vmstack_nl_close(nl);
		return -ENOENT;
	}
	*nlp = nl;
	return 0;
}

void vmstack_nl_close(struct vmstack_nl *nl)
{
	if (!nl)
		return;
	if (nl->sk)
		nl_socket_free(nl->sk);
	free(nl);
}

static int parse_status(struct nlattr **tb, void *arg)
{
	struct vmstack_status *st = arg;

	if (!tb[VMSTACK_A_ABI_MAJOR])
		return -EPROTO;
	st->abi_major = nla_get_u32(tb[VMSTACK_A_ABI_MAJOR]);
	/* ABI 1 had no minor: it reads as 1.0, which a major refuses anyway. */
	if (tb[VMSTACK_A_ABI_MINOR])
		st->abi_minor = nla_get_u32(tb[VMSTACK_A_ABI_MINOR]);
	if (tb[VMSTACK_A_NR_SESSIONS])
		st->nr_sessions = nla_get_u32(tb[VMSTACK_A_NR_SESSIONS]);
	if (tb[VMSTACK_A_MODULE_VERSION])
		snprintf(st->module_version, sizeof(st->module_version), "%s",
			 nla_get_string(tb[VMSTACK_A_MODULE_VERSION]));
	return 0;
}

int vmstack_nl_status(struct vmstack_nl *nl, struct vmstack_status *st,
		      char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_status, .arg = st };
	struct nl_msg *msg = vmstack_msg(nl, VMSTACK_CMD_GET_STATUS);

	if (!msg)
		return -ENOMEM;
	memset(st, 0, sizeof(*st));
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_connect(struct vmstack_nl **nlp, char *err_msg, size_t len)
{
	struct vmstack_status st;

	return vmstack_nl_connect_status(nlp, &st, err_msg, len);
}

int vmstack_nl_connect_status(struct vmstack_nl **nlp, struct vmstack_status *st,
			      char *err_msg, size_t len)
{
	int err;

	err = vmstack_nl_open(nlp, err_msg, len);
	if (err)
		return err;
	err = vmstack_nl_status(*nlp, st, err_msg, len);
	if (!err)
		err = vmstack_abi_check(st->abi_major, st->abi_minor, st->module_version,
					err_msg, len);
	if (err) {
		vmstack_nl_close(*nlp);
		*nlp = NULL;
	}
	return err;
}

static int parse_started(struct nlattr **tb, void *arg)
{
	struct vmstack_started *out = arg;

	if (!tb[VMSTACK_A_SESSION_ID] || !tb[VMSTACK_A_SESSION_FD] ||
	    !tb[VMSTACK_A_NR_CPUS] || !tb[VMSTACK_A_RING_PAGES])
		return -EPROTO;
	out->session_id = nla_get_u32(tb[VMSTACK_A_SESSION_ID]);
	out->fd = (int)nla_get_u32(tb[VMSTACK_A_SESSION_FD]);
	out->nr_cpus = nla_get_u32(tb[VMSTACK_A_NR_CPUS]);
	out->ring_pages = nla_get_u32(tb[VMSTACK_A_RING_PAGES]);
	out->freq = tb[VMSTACK_A_FREQ] ? nla_get_u32(tb[VMSTACK_A_FREQ]) : 0;
	return 0;
}

int vmstack_nl_session_start(struct vmstack_nl *nl,
			     const struct vmstack_start_req *r,
			     struct vmstack_started *out,
			     char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_started, .arg = out };
	struct nl_msg *msg = vmstack_msg(nl, VMSTACK_CMD_SESSION_START);

	if (!msg)
		return -ENOMEM;
	out->fd = -1;
	out->task_events = r->task_events;
	if ((r->all ? nla_put_flag(msg, VMSTACK_A_ALL) :
	     r->cgroup ? nla_put_u32(msg, VMSTACK_A_CGROUP_FD, (uint32_t)r->cgroup_fd) :
	     nla_put_u32(msg, VMSTACK_A_PID, r->pid)) ||
	    nla_put_u32(msg, VMSTACK_A_FREQ, r->freq) ||
	    nla_put_u32(msg, VMSTACK_A_EVENT, r->event) ||
	    nla_put_u32(msg, VMSTACK_A_STACKS, r->stacks) ||
	    nla_put_u32(msg, VMSTACK_A_MAX_DEPTH, r->max_depth) ||
	    nla_put_u32(msg, VMSTACK_A_RING_PAGES, r->ring_pages) ||
	    (r->paused && nla_put_flag(msg, VMSTACK_A_PAUSED)) ||
	    (out->task_events && nla_put_flag(msg, VMSTACK_A_TASK_EVENTS)) ||
	    (r->children && nla_put_flag(msg, VMSTACK_A_CHILDREN))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}

static int session_cmd(struct vmstack_nl *nl, uint8_t cmd, int fd,
		       char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len };
	struct nl_msg *msg = vmstack_msg(nl, cmd);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_session_stop(struct vmstack_nl *nl, int fd,
			    char *err_msg, size_t len)
{
	return session_cmd(nl, VMSTACK_CMD_SESSION_STOP, fd, err_msg, len);
}

int vmstack_nl_session_resume(struct vmstack_nl *nl, int fd,
			      char *err_msg, size_t len)
{
	return session_cmd(nl, VMSTACK_CMD_SESSION_RESUME, fd, err_msg, len);
}

struct stats_out {
	struct vmstack_cpu_counts *counts;	/* by CPU, or the one sum */
	unsigned int max;
	unsigned int nr;
	uint64_t *hist;
};

static uint64_t get_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

/* A nest of counters (and a CPU number, in per-CPU stats) into @c. */
static int parse_counters(struct nlattr *nest, struct vmstack_cpu_counts *c,
			  unsigned int *cpu)
{
	static struct nla_policy cs_policy[VMSTACK_CS_A_MAX + 1];
	struct nlattr *cs[VMSTACK_CS_A_MAX + 1];
	unsigned int i;

	cs_policy[VMSTACK_CS_A_CPU].type = NLA_U32;
	for (i = VMSTACK_CS_A_FIRST_COUNTER; i <= VMSTACK_CS_A_MAX; i++)
		cs_policy[i].type = NLA_U64;
	if (nla_parse_nested(cs, VMSTACK_CS_A_MAX, nest, cs_policy) < 0 ||
	    (cpu && !cs[VMSTACK_CS_A_CPU]))
		return -EPROTO;
	if (cpu)
		*cpu = nla_get_u32(cs[VMSTACK_CS_A_CPU]);
	for (i = 0; i < VMSTACK_NR_COUNTERS; i++)
		c->v[i] = get_u64(cs, VMSTACK_CS_A_FIRST_COUNTER + i);
	return 0;
}

static int parse_totals(struct nlattr **tb, void *arg)
{
	struct stats_out *out = arg;

	if (!tb[VMSTACK_A_COUNTERS] || parse_counters(tb[VMSTACK_A_COUNTERS], out->counts, NULL))
		return -EPROTO;
	if (out->hist && tb[VMSTACK_A_HANDLER_HIST])
		memcpy(out->hist, nla_data(tb[VMSTACK_A_HANDLER_HIST]),
		       8 * VMSTACK_HIST_BUCKETS);
	return 0;
}

/* One message of the per-CPU dump. */
static int parse_cpu_stats(struct nlattr **tb, void *arg)
{
	struct vmstack_cpu_counts c;
	struct stats_out *out = arg;
	unsigned int cpu;

	if (!tb[VMSTACK_A_CPU_STATS] || parse_counters(tb[VMSTACK_A_CPU_STATS], &c, &cpu))
		return -EPROTO;
	if (cpu < out->max) {
		out->counts[cpu] = c;
		if (cpu + 1 > out->nr)
			out->nr = cpu + 1;
	}
	return 0;
}

int vmstack_nl_session_stats(struct vmstack_nl *nl, int fd,
			     struct vmstack_cpu_counts *sum, uint64_t *hist,
			     char *err_msg, size_t len)
{
	struct stats_out out = { .counts = sum, .hist = hist };
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_totals, .arg = &out };
	struct nl_msg *msg = vmstack_msg(nl, VMSTACK_CMD_SESSION_STATS);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	memset(sum, 0, sizeof(*sum));
	if (hist)
		memset(hist, 0, 8 * VMSTACK_HIST_BUCKETS);
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_cpu_stats(struct vmstack_nl *nl, int fd,
			 struct vmstack_cpu_counts *counts, unsigned int max,
			 unsigned int *nr_cpus, char *err_msg, size_t len)
{
	struct stats_out out = { .counts = counts, .max = max };
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_cpu_stats, .arg = &out };
	struct nl_msg *msg = vmstack_msg_flags(nl, VMSTACK_CMD_SESSION_STATS, 4096,
					       NLM_F_DUMP);
	int err;

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	memset(counts, 0, sizeof(*counts) * max);
	err = vmstack_transact(nl, msg, &req);
	*nr_cpus = out.nr;
	return err;
}

static int parse_uw_bytes(struct nlattr **tb, void *arg)
{
	if (tb[VMSTACK_A_UW_BYTES])
		*(uint64_t *)arg = nla_get_u64(tb[VMSTACK_A_UW_BYTES]);
	return 0;
}

/* TARGET_ADD or TARGET_DEL of @pid. */
static int target_cmd(struct vmstack_nl *nl, int cmd, int fd, uint32_t pid,
		      char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len };
	struct nl_msg *msg;

	msg = vmstack_msg(nl, cmd);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd) ||
	    nla_put_u32(msg, VMSTACK_A_PID, pid)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_target_add(struct vmstack_nl *nl, int fd, uint32_t pid,
			  char *err_msg, size_t len)
{
	return target_cmd(nl, VMSTACK_CMD_TARGET_ADD, fd, pid, err_msg, len);
}

int vmstack_nl_target_del(struct vmstack_nl *nl, int fd, uint32_t pid,
			  char *err_msg, size_t len)
{
	return target_cmd(nl, VMSTACK_CMD_TARGET_DEL, fd, pid, err_msg, len);
}

int vmstack_nl_unwind_place(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			    uint64_t start, uint64_t end, uint64_t *bytes,
			    char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_uw_bytes, .arg = bytes };
	struct nl_msg *msg;

	msg = vmstack_msg(nl, VMSTACK_CMD_UNWIND_ADD);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd) ||
	    (pid && nla_put_u32(msg, VMSTACK_A_PID, pid)) ||
	    nla_put_u64(msg, VMSTACK_A_UW_START, start) ||
	    nla_put_u64(msg, VMSTACK_A_UW_END, end) ||
	    nla_put_u64(msg, VMSTACK_A_UW_KEY, key)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_unwind_chunk(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			    uint64_t start, uint64_t end, size_t total, size_t first,
			    const struct vmstack_uw_row *rows, size_t n, uint64_t *bytes,
			    char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len,
				   .parse = parse_uw_bytes, .arg = bytes };
	struct nl_msg *msg = vmstack_msg_size(nl, VMSTACK_CMD_UNWIND_ADD,
					      n * sizeof(*rows) + 512);

	if (!msg) {
		set_msg(err_msg, len, "%s", "out of memory");
		return -ENOMEM;
	}
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd) ||
	    (pid && nla_put_u32(msg, VMSTACK_A_PID, pid)) ||
	    nla_put_u64(msg, VMSTACK_A_UW_START, start) ||
	    nla_put_u64(msg, VMSTACK_A_UW_END, end) ||
	    nla_put_u32(msg, VMSTACK_A_UW_TOTAL, (uint32_t)total) ||
	    nla_put_u32(msg, VMSTACK_A_UW_FIRST, (uint32_t)first) ||
	    (key && nla_put_u64(msg, VMSTACK_A_UW_KEY, key)) ||
	    nla_put(msg, VMSTACK_A_UW_ROWS, (int)(n * sizeof(*rows)), rows)) {
		nlmsg_free(msg);
		set_msg(err_msg, len, "%s", "unwind rows do not fit a message");
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}

int vmstack_nl_unwind_add(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			  uint64_t start,
			  uint64_t end, const struct vmstack_uw_row *rows,
			  size_t n, uint64_t *bytes, char *err_msg, size_t len)
{
	size_t first, chunk;
	int err = 0;

	for (first = 0; first < n && !err; first += chunk) {
		chunk = n - first < VMSTACK_UW_CHUNK_ROWS ? n - first :
			VMSTACK_UW_CHUNK_ROWS;
		err = vmstack_nl_unwind_chunk(nl, fd, pid, key, start, end, n, first,
					      rows + first, chunk, bytes, err_msg, len);
	}
	return err;
}

int vmstack_nl_vm_add(struct vmstack_nl *nl, int fd, uint32_t pid, const void *desc,
		      size_t desc_len, char *err_msg, size_t len)
{
	struct vmstack_req req = { .err_msg = err_msg, .err_len = len };
	struct nl_msg *msg = vmstack_msg(nl, VMSTACK_CMD_VM_ADD);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VMSTACK_A_SESSION_FD, (uint32_t)fd) ||
	    (pid && nla_put_u32(msg, VMSTACK_A_PID, pid)) ||
	    nla_put(msg, VMSTACK_A_VM_DESC, (int)desc_len, desc)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vmstack_transact(nl, msg, &req);
}
