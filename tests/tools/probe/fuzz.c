// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe fuzz: random and mutated generic netlink requests to the
 * module's family; every one must be answered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "probe.h"

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

int fuzz(double secs, unsigned seed, int target)
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
