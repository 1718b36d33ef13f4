// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe targets, memcap, pidns, genlwait: a session's bookkeeping
 * under change (targets joining and leaving, the memory caps, PID
 * namespaces, the generic netlink mutex under load).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "probe.h"

struct pid_count {
	uint32_t pid;
	unsigned long n;
};

static void count_pid(const struct vmstack_rec_sample *rec, void *arg)
{
	struct pid_count *c = arg;

	c->n += rec->pid == c->pid;
}

int targets(int pid, int other, double secs)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 16 };
	static struct vmstack_vm_desc4 d;
	struct vmstack_uw_row row = { .cfa = VMSTACK_UW_CFA_RSP, .cfa_off = 16 };
	struct pid_count seen = { .pid = (uint32_t)other };
	unsigned long rounds = 0, bad = 0;
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	uint64_t bytes, shared;
	char msg[256];
	size_t size;
	void *area;
	unsigned i;
	double t0;

	least_desc(&d);
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v) ||
	    vmstack_nl_session_resume(nl, s.fd, msg, sizeof(msg)))
		return 2;
	/* 3.5: rows the first target uploads under a key, which others place. */
	bad += vmstack_nl_unwind_add(nl, s.fd, 0, 0x5eed, 0x400000, 0x401000, &row, 1,
				     &shared, msg, sizeof(msg)) != 0;
	for (t0 = now(); now() - t0 < secs; rounds++) {
		bad += vmstack_nl_target_add(nl, s.fd, (uint32_t)other, msg, sizeof(msg)) != 0;
		bad += vmstack_nl_target_add(nl, s.fd, (uint32_t)other, msg, sizeof(msg)) != -EEXIST;
		/* Placed again, elsewhere: no more memory; unknown key, wrong length refused. */
		bad += vmstack_nl_unwind_place(nl, s.fd, (uint32_t)other, 0x5eed, 0x600000,
					       0x601000, &bytes, msg, sizeof(msg)) != 0 ||
		       bytes != shared;
		bad += vmstack_nl_unwind_place(nl, s.fd, (uint32_t)other, 0x5eee, 0x700000,
					       0x701000, &bytes, msg, sizeof(msg)) != -ENOENT;
		bad += vmstack_nl_unwind_place(nl, s.fd, (uint32_t)other, 0x5eed, 0x700000,
					       0x702000, &bytes, msg, sizeof(msg)) != -EINVAL;
		/* The first places it over its own: the table's count never hits 0. */
		bad += vmstack_nl_unwind_place(nl, s.fd, 0, 0x5eed, 0x400000, 0x401000, &bytes,
					       msg, sizeof(msg)) != 0 || bytes != shared;
		bad += vmstack_nl_unwind_add(nl, s.fd, (uint32_t)other, 0, 0x400000, 0x401000, &row,
					     1, &bytes, msg, sizeof(msg)) != 0;
		bad += vmstack_nl_vm_add(nl, s.fd, (uint32_t)other, &d, sizeof(d), msg,
					 sizeof(msg)) != 0;
		/* A while as a target, so the handler samples it. */
		usleep(rounds % 2 ? 20000 : 1000);
		bad += vmstack_nl_target_del(nl, s.fd, (uint32_t)other, msg, sizeof(msg)) != 0;
		bad += vmstack_nl_target_del(nl, s.fd, (uint32_t)other, msg, sizeof(msg)) != -ENOENT;
		/* Gone: its rules and VMs are refused now. */
		bad += vmstack_nl_vm_add(nl, s.fd, (uint32_t)other, &d, sizeof(d), msg,
					 sizeof(msg)) != -ENOENT;
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_pid, &seen);
		if (bad && bad < 4)
			fprintf(stderr, "targets: round %lu: %s\n", rounds, msg);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_pid, &seen);
	printf("targets: %lu rounds of add/rules (own and shared)/VM/del, %lu unexpected answers, %lu samples of %d\n",
	       rounds, bad, seen.n, other);
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return bad || !seen.n;
}

/*
 * The first chunk of a table of VMSTACK_UW_MAX_ROWS rows for @pid's
 * mapping: 0, or the error and its message in @msg.
 */
static int big_first_chunk(struct vmstack_nl *nl, int fd, uint32_t pid, char *msg,
			   size_t len)
{
	static struct vmstack_uw_row rows[VMSTACK_UW_CHUNK_ROWS];
	uint64_t bytes;
	unsigned int i;

	for (i = 0; i < VMSTACK_UW_CHUNK_ROWS; i++)
		rows[i] = (struct vmstack_uw_row){ .start = i, .cfa = VMSTACK_UW_CFA_RSP,
						    .cfa_off = 8 };
	return vmstack_nl_unwind_chunk(nl, fd, pid, 0, 0x400000, 0x400000 + (1ULL << 31),
				       VMSTACK_UW_MAX_ROWS, 0, rows, VMSTACK_UW_CHUNK_ROWS,
				       &bytes, msg, len);
}

int memcap(int pid, int other)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 99,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4, .paused = 1 };
	struct vmstack_started s[VMSTACK_MAX_USER_SESSIONS];
	int n = 0, bad = 0, err, i, user_refused = 0;
	struct vmstack_nl *nl;
	char msg[256];

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    vmstack_nl_session_start(nl, &req, &s[n++], msg, sizeof(msg)) ||
	    vmstack_nl_target_add(nl, s[0].fd, (uint32_t)other, msg, sizeof(msg))) {
		fprintf(stderr, "memcap: %s\n", msg);
		return 2;
	}
	err = big_first_chunk(nl, s[0].fd, 0, msg, sizeof(msg));
	printf("memcap: a table being uploaded: %s\n", err ? msg : "taken");
	bad |= err != 0;
	err = big_first_chunk(nl, s[0].fd, (uint32_t)other, msg, sizeof(msg));
	printf("memcap: another in the same session: %s\n", err ? msg : "taken");
	bad |= err != -ENOSPC || !strstr(msg, "VMSTACK_UW_MAX_BYTES");
	/* One per session, until the user's cap. */
	while (n < VMSTACK_MAX_USER_SESSIONS && !user_refused) {
		if (vmstack_nl_session_start(nl, &req, &s[n], msg, sizeof(msg))) {
			printf("memcap: session %d refused: %s\n", n + 1, msg);
			user_refused = strstr(msg, "VMSTACK_MAX_USER_BYTES") != NULL;
			break;
		}
		err = big_first_chunk(nl, s[n++].fd, 0, msg, sizeof(msg));
		if (err) {
			printf("memcap: session %d's table refused: %s\n", n, msg);
			user_refused = err == -ENOSPC && strstr(msg, "VMSTACK_MAX_USER_BYTES");
		}
	}
	printf("memcap: %d sessions, the user's cap %s\n", n,
	       user_refused ? "refused the last" : "never refused");
	bad |= !user_refused;
	for (i = 0; i < n; i++)
		close(s[i].fd);
	/* Closed, their memory is the user's again. */
	if (vmstack_nl_session_start(nl, &req, &s[0], msg, sizeof(msg)) ||
	    big_first_chunk(nl, s[0].fd, 0, msg, sizeof(msg))) {
		printf("memcap: after closing them all: %s\n", msg);
		bad = 1;
	}
	close(s[0].fd);
	vmstack_nl_close(nl);
	return bad;
}

/* Send descriptor @fd over unix socket @sock. */
static int send_fd(int sock, int fd)
{
	char data = 0, ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &data, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

/* A descriptor received over unix socket @sock, or -1. */
static int recv_fd(int sock)
{
	char data, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &data, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* pid 1 of a new PID namespace: a session on itself, its descriptor sent out. */
static void pidns_holder(int sock)
{
	struct vmstack_start_req req = { .pid = (uint32_t)getpid(), .freq = 99,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4, .paused = 1 };
	struct vmstack_started s;
	struct vmstack_nl *nl;
	char msg[256], c;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
		fprintf(stderr, "pidns: %s\n", msg);
		_exit(2);
	}
	if (send_fd(sock, s.fd))
		_exit(2);
	/* Until the other end is done. */
	while (read(sock, &c, 1) > 0)
		;
	_exit(0);
}

int pidns(int other)
{
	uint32_t nrs[2] = { (uint32_t)other, (uint32_t)getpid() };
	struct vmstack_nl *nl;
	int sv[2], fd, bad = 0, err, status;
	unsigned int i;
	char msg[256];
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 2;
	child = fork();
	if (!child) {
		close(sv[0]);
		if (unshare(CLONE_NEWPID))
			_exit(2);
		child = fork();
		if (!child)
			pidns_holder(sv[1]);
		_exit(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) ?
		      WEXITSTATUS(status) : 2);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	if (fd < 0 || vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (i = 0; i < 2; i++) {
		err = vmstack_nl_target_add(nl, fd, nrs[i], msg, sizeof(msg));
		printf("pidns: TARGET_ADD %u, which has no number in the session's namespace: %s\n",
		       nrs[i], err ? msg : "taken");
		bad |= err != -ESRCH;
	}
	close(fd);
	close(sv[0]);
	vmstack_nl_close(nl);
	waitpid(child, &status, 0);
	return bad || !WIFEXITED(status) || WEXITSTATUS(status);
}

/* The slowest of nlctrl's answers to family lookups for @secs, in ms. */
static double nlctrl_worst(double secs, unsigned long *n)
{
	struct nl_sock *sk = nl_socket_alloc();
	double t0, t, worst = 0;

	*n = 0;
	if (!sk || genl_connect(sk) < 0)
		return -1;
	for (t0 = now(); now() - t0 < secs; ++*n) {
		t = now();
		if (genl_ctrl_resolve(sk, VMSTACK_GENL_NAME) < 0) {
			nl_socket_free(sk);
			return -1;
		}
		t = now() - t;
		if (t > worst)
			worst = t;
		usleep(1000);
	}
	nl_socket_free(sk);
	return worst * 1e3;
}

/* Sessions with the largest rings and tables, started and closed for @secs. */
static void genl_load(int pid, double secs, int tables)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 99,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = VMSTACK_MAX_RING_PAGES, .paused = 1 };
	struct vmstack_started s;
	struct vmstack_nl *nl;
	unsigned long rounds = 0;
	double t0, t, worst = 0;
	char msg[256];

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)))
		_exit(2);
	if (tables)
		req.ring_pages = VMSTACK_MIN_RING_PAGES;
	for (t0 = now(); now() - t0 < secs; rounds++) {
		t = now();
		if (vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
			fprintf(stderr, "genlwait: %s\n", msg);
			_exit(2);
		}
		if (tables)
			big_first_chunk(nl, s.fd, 0, msg, sizeof(msg));
		t = now() - t;
		if (t > worst)
			worst = t;
		close(s.fd);
	}
	/* What a request of this kind held the mutex for, without parallel_ops. */
	printf("genlwait: %lu sessions started and closed (%s), the slowest in %.1f ms\n",
	       rounds, tables ? "a 48 MiB table each" : "rings of 4096 pages per CPU",
	       worst * 1e3);
	fflush(stdout);
	_exit(0);
}

int genlwait(int pid, double secs)
{
	unsigned long alone_n, busy_n;
	double alone, busy;
	pid_t kids[2];
	int i, status, bad = 0;

	alone = nlctrl_worst(secs / 2, &alone_n);
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (!kids[i])
			genl_load(pid, secs, i);
	}
	busy = nlctrl_worst(secs, &busy_n);
	for (i = 0; i < 2; i++) {
		waitpid(kids[i], &status, 0);
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	printf("genlwait: nlctrl's slowest answer: %.1f ms alone (%lu), %.1f ms beside vmstack's sessions (%lu)\n",
	       alone, alone_n, busy, busy_n);
	return bad || alone < 0 || busy < 0 ? 2 : 0;
}
