// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe: a test tool that drives vmstack.ko directly, for what
 * vmstack-record cannot do on purpose: hold a session without reading it,
 * open many sessions, and send malformed requests.
 *   vmstack-probe hold PID SECONDS [RING_PAGES [FREQ [drain|nodrain]]]
 *   vmstack-probe sessions PID N
 *   vmstack-probe fuzz SECONDS SEED [PID]
 * "hold" prints the counters and exits 1 unless, for every CPU,
 * taken == written + dropped (and, when draining, read == written).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "ring_reader.h"
#include "vmstack_nl.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void count_sample(const struct vmstack_rec_sample *rec, void *arg)
{
	(void)rec;
	++*(unsigned long *)arg;
}

static int hold(int pid, double secs, unsigned pages, unsigned freq, int drain)
{
	struct vmstack_start_req req = { .pid = pid, .freq = freq,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = VMSTACK_MAX_DEPTH, .ring_pages = pages };
	struct vmstack_cpu_counts c[64];
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	unsigned long read = 0, written = 0;
	struct vmstack_nl *nl;
	unsigned i, n;
	char msg[256];
	int bad = 0;
	size_t size;
	double t0;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
		fprintf(stderr, "probe: %s\n", msg);
		return 2;
	}
	if (s.nr_cpus > 64)
		return 2;
	size = (size_t)s.nr_cpus * (s.ring_pages + 1) * 4096;
	area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	if (area == MAP_FAILED)
		return 2;
	vmstack_ring_views(area, s.nr_cpus, s.ring_pages, 4096, v);
	for (t0 = now(); now() - t0 < secs;) {
		usleep(10000);
		for (i = 0; drain && i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_sample, &read);
	}
	vmstack_nl_session_stop(nl, s.session_id, msg, sizeof(msg));
	for (i = 0; drain && i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	if (vmstack_nl_session_stats(nl, s.session_id, c, 64, &n, NULL, msg,
				     sizeof(msg))) {
		fprintf(stderr, "probe: stats: %s\n", msg);
		return 2;
	}
	for (i = 0; i < n; i++) {
		printf("cpu %u: taken %llu written %llu dropped %llu bad_tail %llu\n", i,
		       (unsigned long long)c[i].taken, (unsigned long long)c[i].written,
		       (unsigned long long)c[i].dropped, (unsigned long long)c[i].bad_tail);
		bad |= c[i].taken != c[i].written + c[i].dropped;
		written += c[i].written;
	}
	printf("read %lu written %lu\n", read, written);
	if (drain && read != written)
		bad = 1;
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return bad;
}

static int sessions(int pid, int count)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4 };
	struct vmstack_started s;
	struct vmstack_status st;
	struct vmstack_nl *nl;
	int i, *fds = calloc(count, sizeof(int));
	char msg[256];

	if (!fds || vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (i = 0; i < count; i++) {
		if (vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg))) {
			fprintf(stderr, "probe: session %d: %s\n", i, msg);
			return 1;
		}
		fds[i] = s.fd;
	}
	vmstack_nl_status(nl, &st, msg, sizeof(msg));
	printf("open sessions: %u\n", st.nr_sessions);
	for (i = 0; i < count; i++)
		close(fds[i]);
	vmstack_nl_close(nl);
	free(fds);
	return st.nr_sessions >= (unsigned)count ? 0 : 1;
}

/* ---- fuzzing: random and mutated requests; every one must get an answer */

static unsigned long replies, errors;

static int on_valid(struct nl_msg *m, void *arg)
{
	struct nlattr *tb[VMSTACK_A_MAX + 1];

	(void)arg;
	replies++;
	/* A session we started by chance: close it again. */
	if (!genlmsg_parse(nlmsg_hdr(m), 0, tb, VMSTACK_A_MAX, NULL) &&
	    tb[VMSTACK_A_SESSION_FD])
		close((int)nla_get_u32(tb[VMSTACK_A_SESSION_FD]));
	return NL_OK;
}

static int on_ack(struct nl_msg *m, void *arg)
{
	(void)m;
	*(int *)arg = 1;
	return NL_STOP;
}

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	if (e->error)
		errors++;
	*(int *)arg = 1;
	return NL_STOP;
}

static void put_random_attrs(struct nl_msg *m, int depth, int target)
{
	unsigned char data[72];
	int i, k, n = rand() % 6;

	for (i = 0; i < n; i++) {
		int type = rand() % (VMSTACK_A_MAX + 4);
		int len = rand() % 5 == 0 ? rand() % 72 : 4 * (rand() % 3);

		for (k = 0; k < len; k++)
			data[k] = (unsigned char)rand();
		if (type == VMSTACK_A_PID && len == 4 && rand() % 2)
			memcpy(data, &target, 4);
		if (depth < 2 && rand() % 8 == 0) {
			struct nlattr *nest = nla_nest_start(m, type);

			put_random_attrs(m, depth + 1, target);
			nla_nest_end(m, nest);
		} else {
			nla_put(m, type, len, data);
		}
	}
}

static void dump(const char *what, const struct nlmsghdr *h)
{
	const unsigned char *p = (const void *)h;
	unsigned i;

	fprintf(stderr, "fuzz: %s (len %u flags 0x%x):", what, h->nlmsg_len,
		h->nlmsg_flags);
	for (i = 0; i < h->nlmsg_len && i < 96; i++)
		fprintf(stderr, " %02x", p[i]);
	fprintf(stderr, "\n");
}

static int fuzz(double secs, unsigned seed, int target)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct timeval tv = { .tv_sec = 1 };
	unsigned long sent = 0, lost = 0;
	struct nl_cb *cb;
	int family, done;
	double t0;

	srand(seed);
	if (!sk || genl_connect(sk) < 0)
		return 2;
	family = genl_ctrl_resolve(sk, VMSTACK_GENL_NAME);
	if (family < 0)
		return 2;
	/* A request left unanswered must not hang the fuzzer: it is counted. */
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Replies are matched one by one; libnl's own check is not needed. */
	nl_socket_disable_seq_check(sk);
	cb = nl_cb_alloc(NL_CB_CUSTOM);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &done);
	nl_cb_err(cb, NL_CB_CUSTOM, on_err, &done);
	for (t0 = now(); now() - t0 < secs; sent++) {
		struct nl_msg *m = nlmsg_alloc();
		int cmd = rand() % (VMSTACK_CMD_MAX + 3);
		int tries;

		genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			    rand() % 10 == 0 ? NLM_F_DUMP : 0, cmd, rand() % 3);
		put_random_attrs(m, 0, target);
		if (rand() % 10 == 0 && nlmsg_hdr(m)->nlmsg_len >= 28) {
			/*
			 * A length that cuts the payload. (A message shorter
			 * than its netlink header is dropped unanswered by
			 * design; those are not sent.)
			 */
			nlmsg_hdr(m)->nlmsg_len -= rand() % 8;
		}
		if (nl_send_auto(sk, m) < 0) {
			nlmsg_free(m);
			continue;
		}
		done = 0;
		for (tries = 0; !done && tries < 4; tries++)
			if (nl_recvmsgs(sk, cb) < 0)
				break;
		if (!done && lost++ < 3)
			dump("unanswered", nlmsg_hdr(m));
		nlmsg_free(m);
	}
	printf("fuzz: %lu requests, %lu replies, %lu errors, %lu without an answer\n",
	       sent, replies, errors, lost);
	nl_cb_put(cb);
	nl_socket_free(sk);
	/* Every request must be answered (an error or an ack). */
	return lost != 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]), atof(argv[3]),
			    argc > 4 ? (unsigned)atoi(argv[4]) : 64,
			    argc > 5 ? (unsigned)atoi(argv[5]) : 999,
			    argc > 6 ? strcmp(argv[6], "nodrain") != 0 : 1);
	if (argc == 4 && !strcmp(argv[1], "sessions"))
		return sessions(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(atof(argv[2]), (unsigned)atoi(argv[3]),
			    argc > 4 ? atoi(argv[4]) : getpid());
	fprintf(stderr, "usage: see the comment at the top of vmstack-probe.c\n");
	return 2;
}
