// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe: a test tool that drives vmstack.ko directly, for what
 * vmstack-record cannot do on purpose: hold a session without reading it,
 * open many sessions, and send malformed requests.
 *   vmstack-probe hold PID SECONDS [RING_PAGES [FREQ [drain|nodrain]]]
 *   vmstack-probe sessions PID N
 *   vmstack-probe fuzz SECONDS SEED [PID]
 *   vmstack-probe vmfuzz PID SECONDS SEED
 *   vmstack-probe intrude SECONDS
 *   vmstack-probe forkcheck PID
 *   vmstack-probe hotplug PID CPU
 *   vmstack-probe hostile PID SECONDS
 *   vmstack-probe targets PID OTHER SECONDS
 *   vmstack-probe memcap PID OTHER
 *   vmstack-probe pidns OTHER
 *   vmstack-probe genlwait PID SECONDS
 * "hold" prints the counters and exits 1 unless, for every CPU,
 * taken == written + dropped (and, when draining, read == written).
 * "sessions" opens N sessions at once and exits 0 only if all opened.
 * "intrude" names every descriptor of its own table (and beyond) in every
 * session command for SECONDS: each must be refused.
 * "forkcheck" maps a session's rings, asks MADV_DOFORK (refused) and
 * forks: the child must not have the mapping, and its exit must not stop
 * the parent's sampling.
 * "hotplug" samples PID while CPU goes offline for a second and comes
 * back: samples on CPU must resume and the gap be counted.
 * "hostile" registers a descriptor built to make the handler work as hard
 * as a target can make it (every native frame runs a program that spends
 * the sample's steps and reads) and prints the handler's time beside a
 * plain session's on the same target.
 * "vmfuzz" adds random and mutated ABI 4 descriptors (programs) to
 * sessions on PID and samples it: the module must take exactly those its
 * check (linked here) takes, and cut the VM stacks of the bad ones.
 * "targets" samples PID while OTHER (busy) joins the session, gets rules
 * and a VM, and leaves it again, round after round: the handler meets a
 * process being added and freed. Every step must be answered as the ABI
 * says and OTHER must have been sampled.
 * "memcap" starts tables of the most rows a mapping may have (their
 * memory is taken at the first chunk) without sending the rest: for PID
 * and OTHER in one session (the second is over the session's cap), then
 * one per session until the user's cap refuses one; after closing them
 * all, a new one fits again.
 * "pidns" starts a session in a new PID namespace (its pid 1), has the
 * descriptor passed back out, and adds OTHER and itself, which have no
 * number in the session's namespace: both must be refused.
 * "genlwait" times another generic netlink family's answers (nlctrl's
 * family lookup, which holds the generic netlink mutex) while other
 * processes start and close sessions with the largest rings and upload
 * the largest unwind tables on PID, and alone before that; prints both.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "ring_reader.h"
#include "vm_prog_check.h"
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
	/* Tests that change the target under the session wait for this. */
	printf("started\n");
	fflush(stdout);
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
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	for (i = 0; drain && i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	if (vmstack_nl_cpu_stats(nl, s.fd, c, 64, &n, msg, sizeof(msg))) {
		fprintf(stderr, "probe: stats: %s\n", msg);
		return 2;
	}
	for (i = 0; i < n; i++) {
		printf("cpu %u: taken %llu written %llu dropped %llu bad_tail %llu\n", i,
		       (unsigned long long)VMSTACK_CNT(&c[i], TAKEN),
		       (unsigned long long)VMSTACK_CNT(&c[i], WRITTEN),
		       (unsigned long long)VMSTACK_CNT(&c[i], DROPPED),
		       (unsigned long long)VMSTACK_CNT(&c[i], BAD_TAIL));
		bad |= VMSTACK_CNT(&c[i], TAKEN) !=
		       VMSTACK_CNT(&c[i], WRITTEN) + VMSTACK_CNT(&c[i], DROPPED);
		written += VMSTACK_CNT(&c[i], WRITTEN);
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
			printf("session %d refused: %s\n", i + 1, msg);
			break;
		}
		fds[i] = s.fd;
	}
	vmstack_nl_status(nl, &st, msg, sizeof(msg));
	printf("opened %d of %d; open sessions: %u\n", i, count, st.nr_sessions);
	while (i-- > 0)
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

/* ---- VM descriptor fuzzing: accepted or refused, never harmful ---- */

/* The end of user space with 4-level paging, as the guest kernel has it. */
#define USER_END	0x7ffffffff000ULL

static int64_t rnd_off(void)
{
	static const int64_t picks[] = { 0, 8, -8, 0x10, 0x20, 0x38, 0x40, 0x48,
					 0x50, -4, 1, -1, 4096, -4096, 1 << 30 };

	return rand() % 3 ? picks[rand() % 15] : (int64_t)(rand() % 512) - 256;
}

/* A LuaJIT trace's fields (user/vm/luajit.c) or not, each on its own. */
static int32_t jit_off(int32_t real)
{
	return rand() % 2 ? real : (int32_t)rnd_off();
}

static void random_jit(struct vmstack_vm_desc4 *d)
{
	d->flags |= VMSTACK_VM4_F_JIT;
	if (rand() % 2)
		d->flags |= VMSTACK_VM4_F_JIT_NEAR;
	if (rand() % 4 == 0)
		d->flags |= VMSTACK_VM4_F_JIT_REF32;
	d->jit_reg = (uint8_t)(rand() % 2 ? VMSTACK_VM_REG_R14 : rand() % (__VMSTACK_VM_REG_MAX + 2));
	d->jit_anchor_adj = jit_off(-0xf80);
	d->jit_id_off = jit_off(0xb8);
	d->jit_table_off = jit_off(0x458);
	d->jit_count_off = jit_off(0x464);
	d->jit_code_off = jit_off(0x58);
	d->jit_size_off = jit_off(0x54);
	d->jit_mask = rand() % 2 ? (1ULL << 47) - 1 : ~0ULL;
	/* Near objects: links, roots and chains right, garbage, or looping. */
	d->jit_link_off = jit_off(0x6a);
	d->jit_root_off = jit_off(0x6c);
	d->jit_side_off = jit_off(0x70);
	d->jit_near_max = rand() % 4 ? 16 : (uint32_t)rand() % 40;
	/* An anchor through a pointer variable: in the stack, or wild. */
	d->jit_anchor_ptr = rand() % 2 ? 0x7ffffffde000ULL + (uint64_t)(rand() % 4096) * 8 :
				       (uint64_t)rand() << (rand() % 40);
}

/* An immediate that means something to @op most of the time. */
static int32_t random_imm(uint8_t op, unsigned int nr_consts)
{
	static const int32_t exits[] = { VMSTACK_VM4_X_SHOWN, VMSTACK_VM4_X_EMPTY,
		VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK,
		VMSTACK_VM4_X_CUT + VMSTACK_VMB_FRAME, VMSTACK_VM4_X_CUT };

	if (rand() % 8 == 0)
		return (int32_t)rand() - RAND_MAX / 2;
	switch (op) {
	case VMSTACK_VM4_LDC:
		return nr_consts ? rand() % (int)nr_consts : 0;
	case VMSTACK_VM4_LDREG:
		return rand() % __VMSTACK_VM_REG_MAX;
	case VMSTACK_VM4_EXIT:
		return exits[rand() % 6];
	case VMSTACK_VM4_EMIT_UNVERIFIED:
		return 1 + rand() % VMSTACK_VMU_EDGE;
	default:
		return (int32_t)rnd_off();
	}
}

/* Instruction @i of @len: mostly a known opcode and a jump that lands inside. */
static struct vmstack_vm_insn random_insn(unsigned int i, unsigned int len,
					  unsigned int nr_consts)
{
	struct vmstack_vm_insn in;

	in.op = (uint8_t)(rand() % 16 ? rand() % __VMSTACK_VM4_OP_MAX : rand() % 256);
	/* Registers 1, 2 (sp, bp), 6 (TLS) and 8 (carried) are the useful ones. */
	in.regs = (uint8_t)(rand() % 4 ? VMSTACK_VM4_REGS_OF(rand() % 12, rand() % 12) : rand());
	in.off = (int16_t)(rand() % 8 ? (int)(rand() % len) - (int)(i + 1) : rand());
	in.imm = random_imm(in.op, nr_consts);
	return in;
}

/*
 * Programs of the kind runtimes send, to mutate: a frame-pointer chain
 * shown as script frames (every frame a loop of reads), a thread state
 * found by thread id on a list, and a walk from a register that falls
 * back to another start with MARK/UNDO.
 */
#define I(op, dst, src, off, imm) \
	((struct vmstack_vm_insn){ VMSTACK_VM4_##op, VMSTACK_VM4_REGS_OF(dst, src), off, imm })
static const struct vmstack_vm_insn real_progs[3][12] = {
	{
		I(JEQ_K, 0, 0, 1, VMSTACK_VM4_AT_NATIVE), I(EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY),
		I(MOV, 7, 2, 0, 0), I(LD64, 3, 7, 0, 8), I(EMIT_SCRIPT, 3, 7, 0, 0),
		I(LD64, 7, 7, 0, 0), I(JNE_K, 7, 0, -4, 0),
		I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN),
	},
	{
		I(JNE_K, 9, 0, 5, 0), I(LDC, 9, 0, 0, 0), I(LD64, 9, 9, 0, 0x10),
		I(LD32, 3, 9, 0, 0xa0), I(JEQ, 3, 5, 1, 0), I(LD64, 9, 9, 0, 8),
		I(JNE_K, 9, 0, -4, 0), I(LD64, 7, 9, 0, 0x38), I(EMIT_BUILTIN, 7, 0, 0, 0),
		I(LD64, 8, 6, 0, -8), I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN),
	},
	{
		I(LDREG, 7, 0, 0, VMSTACK_VM_REG_RDX), I(MARK, 0, 0, 0, 0), I(LD64, 3, 7, 0, -8),
		I(JSET_K, 3, 0, 3, 7), I(EMIT_SCRIPT, 3, 7, 0, 0), I(SUB_K, 7, 0, 0, 16),
		I(JA, 0, 0, -5, 0), I(UNDO, 0, 0, 0, 0), I(LD64, 7, 1, 0, 0x20),
		I(EMIT_UNVERIFIED, 0, 0, 0, VMSTACK_VMU_EDGE),
		I(EXIT, 0, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK),
	},
};
static const unsigned int real_lens[3] = { 8, 11, 11 };

static void random_prog(struct vmstack_vm_desc4 *d)
{
	unsigned int i, n, k = (unsigned int)rand() % 3;

	if (rand() % 2) {
		/* A real one, one to three instructions changed. */
		d->prog_len = (uint16_t)real_lens[k];
		memcpy(d->prog, real_progs[k], sizeof(real_progs[k]));
		for (n = 1 + rand() % 3; n; n--) {
			i = (unsigned int)rand() % d->prog_len;
			switch (rand() % 4) {
			case 0:
				d->prog[i].op = (uint8_t)(d->prog[i].op + rand() % 3 - 1);
				break;
			case 1:
				d->prog[i].regs = (uint8_t)rand();
				break;
			case 2:
				d->prog[i].off = (int16_t)(d->prog[i].off + rand() % 3 - 1);
				break;
			default:
				d->prog[i].imm = random_imm(d->prog[i].op, d->nr_consts);
			}
		}
		return;
	}
	d->prog_len = (uint16_t)(rand() % 8 ? 1 + rand() % 32 : 1 + rand() % VMSTACK_VM4_PROG_MAX);
	for (i = 0; i < d->prog_len; i++)
		d->prog[i] = random_insn(i, d->prog_len, d->nr_consts);
	/* Most end in an EXIT or a loop back. */
	if (rand() % 4)
		d->prog[d->prog_len - 1] = rand() % 2 ? I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN) :
			I(JA, 0, 0, -(int16_t)d->prog_len, 0);
}

/*
 * Three in four descriptors are repaired, instruction by instruction,
 * until the check (the module's, linked here) takes them, so the module
 * runs their random reads and loops; the fourth is sent as it is.
 */
static void repair(struct vmstack_vm_desc4 *d)
{
	unsigned int tries;
	int at;

	for (tries = 0; tries < 200 && vmstack_vm_desc4_check_insn(d, &at); tries++) {
		if (at >= d->prog_len) {
			memset(&d->prog[at], 0, sizeof(d->prog[at]));
		} else if (at >= 0) {
			d->prog[at] = random_insn((unsigned int)at, d->prog_len, d->nr_consts);
			if (at == d->prog_len - 1 && rand() % 2)
				d->prog[at] = I(EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY);
		} else {
			d->flags &= VMSTACK_VM4_F_ALL;
			d->jit_reg %= __VMSTACK_VM_REG_MAX;
			d->max_frames = (uint16_t)(1 + d->max_frames % VMSTACK_VM_MAX_FRAMES);
			memset(d->pad0, 0, sizeof(d->pad0));
			if (d->flags & VMSTACK_VM4_F_JIT)
				d->flags &= ~VMSTACK_VM4_F_NATIVE_STEP;
			else
				d->flags &= ~(VMSTACK_VM4_F_JIT_NEAR | VMSTACK_VM4_F_JIT_REF32);
			if (d->jit_reg == VMSTACK_VM_REG_NONE)
				d->jit_anchor_ptr = 0x1000 + (d->jit_anchor_ptr & 0x7ffffffeff8ULL);
			d->jit_near_max = 1 + d->jit_near_max % VMSTACK_VM_JIT_NEAR_MAX;
			d->nr_consts %= VMSTACK_VM4_CONSTS + 1;
			memset(&d->consts[d->nr_consts], 0,
			       (VMSTACK_VM4_CONSTS - d->nr_consts) * sizeof(d->consts[0]));
			d->ranges[0].start = 0x1000;
			d->ranges[0].end = USER_END;
			memset(&d->ranges[1], 0, 3 * sizeof(d->ranges[1]));
		}
	}
}
#undef I

static void random_desc(struct vmstack_vm_desc4 *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	/* All of user space is "VM code": every frame runs the program. */
	d->ranges[0].start = rand() % 10 ? 0x1000 : (uint64_t)rand() << 12;
	d->ranges[0].end = rand() % 10 ? USER_END : (uint64_t)rand() << 16;
	for (i = 1; i < VMSTACK_VM4_RANGES && rand() % 8 == 0; i++) {
		d->ranges[i].start = (uint64_t)rand() << 12;
		d->ranges[i].end = d->ranges[i].start + (uint64_t)(rand() % 3) * 0x1000;
	}
	d->flags = rand() % 10 ? (uint32_t)rand() & VMSTACK_VM4_F_NATIVE_STEP : (uint32_t)rand();
	d->max_frames = (uint16_t)(rand() % 4 ? 1 + rand() % VMSTACK_VM_MAX_FRAMES : rand());
	d->nr_consts = rand() % 8 ? (uint32_t)rand() % (VMSTACK_VM4_CONSTS + 1) : (uint32_t)rand();
	for (i = 0; i < VMSTACK_VM4_CONSTS; i++)
		if (i < d->nr_consts || rand() % 50 == 0)
			d->consts[i] = rand() % 2 ? 0x7ffffffde000ULL + (uint64_t)(rand() % 4096) * 8 :
						    (uint64_t)rand();
	d->caller_bp_off = (int32_t)rnd_off();
	d->caller_ra_off = (int32_t)rnd_off();
	d->caller_sp_off = (int32_t)rnd_off();
	if (rand() % 4 == 0)
		random_jit(d);
	if (rand() % 20 == 0)
		d->pad0[rand() % 3] = 1;
	random_prog(d);
	/* Junk past the program, sometimes. */
	if (rand() % 20 == 0 && d->prog_len < VMSTACK_VM4_PROG_MAX)
		d->prog[d->prog_len].imm = 1;
	if (rand() % 4)
		repair(d);
}

/* A descriptor with room behind it, as a newer tool would send. */
struct long_desc {
	struct vmstack_vm_desc4 desc;
	unsigned char tail[64];
};

/*
 * Mostly the struct as it is; sometimes cut short (refused below the
 * 4.0 size), longer with a tail of zeros (a newer tool not using its
 * additions: taken) or not (refused), or with a size field that is not
 * its length (refused).
 */
static size_t random_len(struct long_desc *d)
{
	int pick = rand() % 20;
	size_t len = sizeof(d->desc);

	memset(d->tail, 0, sizeof(d->tail));
	if (pick == 0)
		len = (size_t)rand() % sizeof(d->desc);
	if (pick == 1)
		len = sizeof(d->desc) + 8 * (1 + rand() % 8);
	if (pick == 2) {
		d->tail[rand() % sizeof(d->tail)] = (unsigned char)(1 + rand() % 255);
		len = sizeof(*d);
	}
	d->desc.size = (uint32_t)len;
	if (pick == 3)
		d->desc.size = (uint32_t)rand();
	return len;
}

/* Must the module take @d, sent in @len bytes? As its check says. */
static int should_take(const struct long_desc *d, size_t len)
{
	unsigned int i;

	if (len < sizeof(d->desc) || d->desc.size != len)
		return 0;
	for (i = 0; i < len - sizeof(d->desc); i++)
		if (d->tail[i])
			return 0;
	/* The check here allows 5-level paging; the guest has 4 levels. */
	for (i = 0; i < VMSTACK_VM4_RANGES; i++)
		if (d->desc.ranges[i].end > USER_END)
			return 0;
	return vmstack_vm_desc4_check(&d->desc) == NULL;
}

static int vmfuzz(int pid, double secs, unsigned seed)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 2000,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = VMSTACK_MAX_DEPTH, .ring_pages = 64, .paused = 1 };
	unsigned long sessions = 0, accepted = 0, refused = 0, samples = 0, disagree = 0;
	struct vmstack_cpu_counts c;
	uint64_t vm_errors = 0;
	struct long_desc d;
	struct vmstack_started s;
	struct vmstack_ring_view v[64];
	struct vmstack_nl *nl;
	unsigned i, k;
	char msg[256];
	double t0, t1;
	size_t size, len;
	void *area;
	int err;

	srand(seed);
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (t0 = now(); now() - t0 < secs; sessions++) {
		if (vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg)) ||
		    s.nr_cpus > 64) {
			fprintf(stderr, "vmfuzz: %s\n", msg);
			return 2;
		}
		/* Up to VMSTACK_VM_MAX taken: more are refused as too many. */
		for (k = 0; k < 6; k++) {
			random_desc(&d.desc);
			len = random_len(&d);
			err = vmstack_nl_vm_add(nl, s.fd, 0, &d, len, msg, sizeof(msg));
			if (err)
				refused++;
			else
				accepted++;
			/* The module's verdict is the check's, which this tool links. */
			if (err != -ENOSPC && (err == 0) != should_take(&d, len) && disagree++ < 5)
				fprintf(stderr, "vmfuzz: the module %s a descriptor its check %s (%s)\n",
					err ? "refused" : "took", err ? "takes" : "refuses",
					err ? msg : "taken");
		}
		size = (size_t)s.nr_cpus * (s.ring_pages + 1) * 4096;
		area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
		if (area == MAP_FAILED)
			return 2;
		vmstack_ring_views(area, s.nr_cpus, s.ring_pages, 4096, v);
		vmstack_nl_session_resume(nl, s.fd, msg, sizeof(msg));
		for (t1 = now(); now() - t1 < 0.2;) {
			usleep(10000);
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_sample, &samples);
		}
		vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
		if (!vmstack_nl_session_stats(nl, s.fd, &c, NULL, msg, sizeof(msg)))
			vm_errors += VMSTACK_CNT(&c, VM_ERRORS);
		munmap(area, size);
		close(s.fd);
	}
	printf("vmfuzz: %lu sessions, %lu descriptors accepted, %lu refused, %lu verdicts unlike the check's, %lu samples, %llu VM stacks cut\n",
	       sessions, accepted, refused, disagree, samples, (unsigned long long)vm_errors);
	vmstack_nl_close(nl);
	return !(accepted && refused && samples && vm_errors && !disagree);
}

/* ---- what issue-by-issue safety promises need ---- */

/* A session on @pid with its rings mapped (views in v[]). 0 or -1. */
static int open_mapped(struct vmstack_nl *nl, struct vmstack_start_req *req,
		       struct vmstack_started *s, void **area, size_t *size,
		       struct vmstack_ring_view *v)
{
	char msg[256];

	if (vmstack_nl_session_start(nl, req, s, msg, sizeof(msg)) || s->nr_cpus > 64) {
		fprintf(stderr, "probe: %s\n", msg);
		return -1;
	}
	*size = (size_t)s->nr_cpus * (s->ring_pages + 1) * 4096;
	*area = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (*area == MAP_FAILED)
		return -1;
	vmstack_ring_views(*area, s->nr_cpus, s->ring_pages, 4096, v);
	return 0;
}

/* The least descriptor the module takes: one range, a program of no frames. */
static void least_desc(struct vmstack_vm_desc4 *d)
{
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->ranges[0].start = 0x1000;
	d->ranges[0].end = 0x2000;
	d->max_frames = 1;
	d->prog_len = 1;
	d->prog[0] = (struct vmstack_vm_insn){ .op = VMSTACK_VM4_EXIT,
					       .imm = VMSTACK_VM4_X_EMPTY };
}

/* Every session command, naming descriptors of our own table: all refused. */
static int intrude(double secs)
{
	static struct vmstack_vm_desc4 d;
	struct vmstack_uw_row row = { .cfa = VMSTACK_UW_CFA_RSP, .cfa_off = 16 };
	unsigned long tries = 0, taken = 0;
	struct vmstack_cpu_counts c[64];
	struct vmstack_nl *nl;
	unsigned int n;
	uint64_t bytes;
	char msg[256];
	double t0;
	int fd;

	least_desc(&d);
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (t0 = now(); now() - t0 < secs;) {
		for (fd = 0; fd < 1024; fd++, tries += 8) {
			taken += !vmstack_nl_session_stop(nl, fd, msg, sizeof(msg));
			taken += !vmstack_nl_session_resume(nl, fd, msg, sizeof(msg));
			taken += !vmstack_nl_session_stats(nl, fd, c, NULL, msg, sizeof(msg));
			taken += !vmstack_nl_cpu_stats(nl, fd, c, 64, &n, msg, sizeof(msg));
			taken += !vmstack_nl_unwind_add(nl, fd, 0, 0, 0x400000, 0x401000, &row, 1,
							&bytes, msg, sizeof(msg));
			taken += !vmstack_nl_vm_add(nl, fd, 0, &d, sizeof(d), msg, sizeof(msg));
			taken += !vmstack_nl_target_add(nl, fd, (uint32_t)getpid(), msg,
							sizeof(msg));
			taken += !vmstack_nl_target_del(nl, fd, (uint32_t)getpid(), msg,
							sizeof(msg));
		}
	}
	printf("intrude: %lu requests naming descriptors 0..1023, %lu taken; last refusal: %s\n",
	       tries, taken, msg);
	vmstack_nl_close(nl);
	return taken != 0;
}

static uint64_t written_now(struct vmstack_nl *nl, int fd)
{
	struct vmstack_cpu_counts c;
	char msg[256];

	return vmstack_nl_session_stats(nl, fd, &c, NULL, msg, sizeof(msg)) ? 0 :
	       VMSTACK_CNT(&c, WRITTEN);
}

/* A forked child: no ring mapping, and its exit stops nothing. */
static int forkcheck(int pid)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 4 };
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	uint64_t before, after;
	int status, bad = 0, dofork;
	unsigned long read = 0;
	unsigned int i;
	char msg[256];
	pid_t child;
	size_t size;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v))
		return 2;
	/* MADV_DOFORK must not make the mapping inheritable after all. */
	dofork = !madvise(area, size, MADV_DOFORK);
	if (dofork)
		printf("forkcheck: MADV_DOFORK accepted on the rings\n");
	child = fork();
	if (!child) {
		char line[512];
		FILE *f = fopen("/proc/self/maps", "r");
		int found = 0;

		while (f && fgets(line, sizeof(line), f))
			found |= strstr(line, "[vmstack]") != NULL;
		_exit(found);
	}
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("forkcheck: the child had the ring mapping\n");
		bad = 1;
	}
	before = written_now(nl, s.fd);
	usleep(500000);
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	after = written_now(nl, s.fd);
	printf("forkcheck: child without the mapping: %s; samples written in the 0.5 s after its exit: %llu\n",
	       bad ? "no" : "yes", (unsigned long long)(after - before));
	bad |= after == before || dofork;
	/* Closing the descriptor stops sampling; the mapped rings stay readable. */
	close(s.fd);
	read = 0;
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	usleep(300000);
	before = read;
	for (i = 0; i < s.nr_cpus; i++)
		vmstack_ring_drain(&v[i], count_sample, &read);
	printf("forkcheck: samples in the rings 0.3 s after closing the descriptor: %lu\n",
	       read - before);
	bad |= read != before;
	munmap(area, size);
	vmstack_nl_close(nl);
	return bad;
}

static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f)) {
		fprintf(stderr, "probe: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

struct by_phase {
	int cpu;
	int phase;
	unsigned long samples[3];	/* on cpu: before, while offline, after */
};

static void count_cpu(const struct vmstack_rec_sample *rec, void *arg)
{
	struct by_phase *p = arg;

	if ((int)rec->cpu == p->cpu)
		p->samples[p->phase]++;
}

/* @cpu off for a second mid-session and back: it is sampled again after. */
static int hotplug(int pid, int cpu)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = 64, .ring_pages = 64 };
	struct by_phase p = { .cpu = cpu };
	struct vmstack_cpu_counts c[64];
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	struct vmstack_nl *nl;
	unsigned int i, n;
	char msg[256];
	size_t size;
	double t0, t;
	void *area;

	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    open_mapped(nl, &req, &s, &area, &size, v) || cpu >= (int)s.nr_cpus)
		return 2;
	for (t0 = now(); (t = now() - t0) < 3.5;) {
		usleep(10000);
		if (p.phase == 0 && t >= 1.0) {
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_cpu, &p);
			if (set_online(cpu, 0))
				return 2;
			p.phase = 1;
		} else if (p.phase == 1 && t >= 2.0) {
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_cpu, &p);
			if (set_online(cpu, 1))
				return 2;
			p.phase = 2;
		}
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_cpu, &p);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	if (vmstack_nl_cpu_stats(nl, s.fd, c, 64, &n, msg, sizeof(msg)) || cpu >= (int)n)
		return 2;
	printf("hotplug: samples on CPU %d: %lu before, %lu while offline, %lu after; offline %.3f s counted\n",
	       cpu, p.samples[0], p.samples[1], p.samples[2],
	       VMSTACK_CNT(&c[cpu], OFFLINE_NS) / 1e9);
	munmap(area, size);
	close(s.fd);
	vmstack_nl_close(nl);
	return !(p.samples[0] && p.samples[2] && VMSTACK_CNT(&c[cpu], OFFLINE_NS) > 500000000ULL);
}

/* The histogram's value at fraction @q (the upper end of its bucket). */
static uint64_t hist_at(const uint64_t *hist, double q)
{
	unsigned int b = vmstack_hist_bucket_at(hist, q);

	if (b == VMSTACK_HIST_BUCKETS)
		return 0;
	return b + 1 < VMSTACK_HIST_BUCKETS ? vmstack_hist_lower(b + 1) : ~0ULL;
}

/* One session of @secs on @pid (with descriptor @d unless NULL). */
static int measure(struct vmstack_nl *nl, int pid, unsigned int depth,
		   const struct vmstack_vm_desc4 *d, double secs, uint64_t *hist,
		   struct vmstack_cpu_counts *c)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 999,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = depth, .ring_pages = 64, .paused = 1 };
	struct vmstack_ring_view v[64];
	struct vmstack_started s;
	unsigned long read = 0;
	unsigned int i;
	char msg[256];
	size_t size;
	double t0;
	void *area;

	if (open_mapped(nl, &req, &s, &area, &size, v))
		return -1;
	if (d && vmstack_nl_vm_add(nl, s.fd, 0, d, sizeof(*d), msg, sizeof(msg))) {
		fprintf(stderr, "probe: hostile descriptor refused: %s\n", msg);
		return -1;
	}
	vmstack_nl_session_resume(nl, s.fd, msg, sizeof(msg));
	for (t0 = now(); now() - t0 < secs;) {
		usleep(10000);
		for (i = 0; i < s.nr_cpus; i++)
			vmstack_ring_drain(&v[i], count_sample, &read);
	}
	vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
	vmstack_nl_session_stats(nl, s.fd, c, hist, msg, sizeof(msg));
	munmap(area, size);
	close(s.fd);
	return 0;
}

/*
 * The most work a target can ask of the handler: all of user space is
 * "VM code", so every native frame runs the program, and the program is
 * a loop of one read and six other instructions that never exits: runs
 * stop at VMSTACK_VM4_RUN_STEPS, and the sample's reads (4096) run out
 * at 28,672 of its VMSTACK_VM4_SAMPLE_STEPS (32,768): both bounds spent.
 */
static int hostile(int pid, double secs)
{
	static struct vmstack_vm_desc4 d;
	unsigned int i;
	static uint64_t plain_hist[VMSTACK_HIST_BUCKETS], hostile_hist[VMSTACK_HIST_BUCKETS];
	struct vmstack_cpu_counts plain, bad;
	struct vmstack_nl *nl;
	char msg[256];

	least_desc(&d);
	d.ranges[0].end = USER_END;
	d.flags = VMSTACK_VM4_F_NATIVE_STEP;
	d.max_frames = VMSTACK_VM_MAX_FRAMES;
	d.prog_len = 7;
	d.prog[0] = (struct vmstack_vm_insn){ VMSTACK_VM4_LD64, VMSTACK_VM4_REGS_OF(3, 1), 0, 0 };
	for (i = 1; i < 6; i++)
		d.prog[i] = (struct vmstack_vm_insn){ VMSTACK_VM4_ADD_K, 4, 0, 1 };
	d.prog[6] = (struct vmstack_vm_insn){ VMSTACK_VM4_JA, 0, -7, 0 };
	if (vmstack_vm_desc4_check(&d)) {
		fprintf(stderr, "hostile: %s\n", vmstack_vm_desc4_check(&d));
		return 2;
	}
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)) ||
	    measure(nl, pid, 128, NULL, secs, plain_hist, &plain) ||
	    measure(nl, pid, VMSTACK_MAX_DEPTH, &d, secs, hostile_hist, &bad))
		return 2;
	printf("hostile: plain, 128 frames: p50 %llu ns, p99 %llu ns, max %llu ns (%llu samples)\n",
	       (unsigned long long)hist_at(plain_hist, 0.5), (unsigned long long)hist_at(plain_hist, 0.99),
	       (unsigned long long)hist_at(plain_hist, 1.0),
	       (unsigned long long)VMSTACK_CNT(&plain, WRITTEN));
	printf("hostile: hostile descriptor, %d frames: p50 %llu ns, p99 %llu ns, max %llu ns (%llu samples, %llu cut by the read budget, %llu throttled)\n",
	       VMSTACK_MAX_DEPTH, (unsigned long long)hist_at(hostile_hist, 0.5),
	       (unsigned long long)hist_at(hostile_hist, 0.99),
	       (unsigned long long)hist_at(hostile_hist, 1.0),
	       (unsigned long long)VMSTACK_CNT(&bad, WRITTEN),
	       (unsigned long long)VMSTACK_CNT(&bad, BUDGET),
	       (unsigned long long)VMSTACK_CNT(&bad, THROTTLED));
	printf("hostile: p99 ratio %.1f\n",
	       (double)hist_at(hostile_hist, 0.99) / (double)hist_at(plain_hist, 0.99));
	vmstack_nl_close(nl);
	return !VMSTACK_CNT(&bad, BUDGET);
}

struct pid_count {
	uint32_t pid;
	unsigned long n;
};

static void count_pid(const struct vmstack_rec_sample *rec, void *arg)
{
	struct pid_count *c = arg;

	c->n += rec->pid == c->pid;
}

static int targets(int pid, int other, double secs)
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

static int memcap(int pid, int other)
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

static int pidns(int other)
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

static int genlwait(int pid, double secs)
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

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]), atof(argv[3]),
			    argc > 4 ? (unsigned)atoi(argv[4]) : 64,
			    argc > 5 ? (unsigned)atoi(argv[5]) : 999,
			    argc > 6 ? strcmp(argv[6], "nodrain") != 0 : 1);
	if (argc == 5 && !strcmp(argv[1], "vmfuzz"))
		return vmfuzz(atoi(argv[2]), atof(argv[3]), (unsigned)atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "sessions"))
		return sessions(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(atof(argv[2]), (unsigned)atoi(argv[3]),
			    argc > 4 ? atoi(argv[4]) : getpid());
	if (argc == 3 && !strcmp(argv[1], "intrude"))
		return intrude(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "forkcheck"))
		return forkcheck(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "hotplug"))
		return hotplug(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "targets"))
		return targets(atoi(argv[2]), atoi(argv[3]), atof(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "genlwait"))
		return genlwait(atoi(argv[2]), atof(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "pidns"))
		return pidns(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "memcap"))
		return memcap(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hostile"))
		return hostile(atoi(argv[2]), atof(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of vmstack-probe.c\n");
	return 2;
}
