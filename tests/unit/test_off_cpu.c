// SPDX-License-Identifier: GPL-2.0
/*
 * Waits from switch-outs (user/off_cpu.c), on records made here whose
 * waits are known: each weighed by its own stack, in microseconds, when
 * a drain's records of one thread come out of order, and when a later
 * record of a thread comes a drain before an earlier one (held until
 * VMSTACK_OFF_CPU_HOLD_NS before a drain's start); a thread ID reused
 * by a new thread; a gap (a switch-out between not recorded) counted,
 * not shown; waits under --min-wait
 * counted only; a preempted switch-out's wait counted as runnable.
 */
#include <stdint.h>
#include <string.h>

#include "off_cpu.h"
#include "unit.h"

/* A switch-out record: one user frame (the stack's name), then the tail. */
struct rec {
	struct vmstack_rec_sample s;
	uint64_t ip;
	struct vmstack_rec_switch_tail t;
};

/* Fill @r (not returned by value: the sample ends in a flexible array). */
static void make(struct rec *r, uint32_t tid, uint64_t ip, uint64_t time_ns, uint64_t run_ns,
		 uint64_t switches, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->s.hdr.type = VMSTACK_REC_SWITCH;
	r->s.hdr.flags = flags;
	r->s.hdr.size = sizeof(*r);
	r->s.time_ns = time_ns;
	r->s.pid = 100;
	r->s.tid = tid;
	r->s.nr_user = 1;
	r->ip = ip;
	r->t.run_ns = run_ns;
	r->t.switches = switches;
}

/* What fn was given: weight by the stack's ip (1..4); calls of weight 0 (none). */
struct seen {
	uint64_t by_ip[5];
	unsigned int unweighed;
};

static void fn(const struct vmstack_rec_sample *rec, uint64_t weight_us, void *arg)
{
	struct seen *s = arg;

	if (!weight_us)
		s->unweighed++;
	else if (rec->ips[0] < 5)
		s->by_ip[rec->ips[0]] += weight_us;
}

UNIT_TEST(off_cpu_waits)
{
	struct vmstack_off_cpu oc;
	struct seen s = { 0 };
	struct rec r;

	vmstack_off_cpu_init(&oc, 1000, fn, &s);
	/*
	 * Thread 7: out at 0 (stack 1), ran 1 ms, out at 10 ms (stack 2): a
	 * 9 ms wait under stack 1. Given late first, as two CPUs' rings are.
	 */
	make(&r, 7, 2, 10000000, 1000000, 2, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	make(&r, 7, 1, 0, 0, 1, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	/* Thread 8, preempted at 0, back after 2 ms, ran 3 ms, out at 5 ms. */
	make(&r, 8, 3, 0, 0, 40, VMSTACK_SF_PREEMPTED);
	vmstack_off_cpu_take(&oc, &r.s);
	make(&r, 8, 4, 5000000, 3000000, 41, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, UINT64_MAX);
	CHECK(s.by_ip[1] == 9000 && s.by_ip[2] == 0);
	CHECK(s.by_ip[3] == 2000);
	CHECK(oc.n.waits == 2 && oc.n.runnable == 1 && oc.n.runnable_ns == 2000000);
	CHECK(!s.unweighed && oc.n.switches == 4);
	/* The CPU time between switch-outs (--wall's check): 1 ms and 3 ms. */
	CHECK(oc.n.run_ns == 4000000);

	/* Thread 7 again, in a later drain: switch 4 (3 unrecorded): a gap. */
	make(&r, 7, 1, 30000000, 2000000, 4, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	/* Thread 8: 0.5 ms later, ran nothing: under --min-wait (1 us)? No: 500 us. */
	make(&r, 8, 4, 5500000, 3000000, 42, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	/* Thread 8: 800 ns later: shorter than the minimum. */
	make(&r, 8, 4, 5500800, 3000000, 43, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, UINT64_MAX);
	CHECK(oc.n.gaps == 1 && oc.n.gap_ns == 30000000 - 10000000 - 1000000);
	CHECK(s.by_ip[2] == 0 && s.by_ip[4] == 500);
	CHECK(oc.n.short_waits == 1 && oc.n.waits == 3);
	/* Thread 7 ran 1 ms more across its gap; thread 8 nothing. */
	CHECK(oc.n.run_ns == 5000000);
	vmstack_off_cpu_free(&oc);
}

UNIT_TEST(off_cpu_across_drains)
{
	const uint64_t ms = 1000000;
	struct vmstack_off_cpu oc;
	struct seen s = { 0 };
	struct rec r;

	vmstack_off_cpu_init(&oc, 1000, fn, &s);
	/*
	 * Thread 9 switched out at 100 ms (stack 1) on a CPU whose ring the
	 * drain starting at 130 ms had read already, and at 101 ms (stack
	 * 2) on one it had not: only the later record is in that drain.
	 */
	make(&r, 9, 2, 101 * ms, ms / 2, 2, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, 130 * ms);
	CHECK(oc.batch_n == 1 && !oc.n.waits);
	/* The next drain (300 ms) has the earlier one, and one at 200 ms (stack 3). */
	make(&r, 9, 1, 100 * ms, 0, 1, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	make(&r, 9, 3, 200 * ms, ms, 3, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, 300 * ms);
	CHECK(!s.unweighed && oc.batch_n == 0);
	/* 1 ms between, 0.5 ms run; 99 ms between, 0.5 ms run. */
	CHECK(s.by_ip[1] == 500 && s.by_ip[2] == 98500);
	CHECK(oc.n.waits == 2 && !oc.n.gaps && !oc.n.unpaired);
	/* A record older than the one kept (a drain held it too little): not paired. */
	make(&r, 9, 4, 150 * ms, ms, 2, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, UINT64_MAX);
	CHECK(oc.n.unpaired == 1 && oc.n.waits == 2 && !s.by_ip[4]);
	/*
	 * Thread 9 exited; a new thread 9 switches out at 400 and 410 ms
	 * (switches 1 and 2, 5 ms run): the old one's last wait is counted
	 * unended, the new one's first weighed (5 ms).
	 */
	make(&r, 9, 4, 400 * ms, 0, 1, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	make(&r, 9, 1, 410 * ms, 5 * ms, 2, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, UINT64_MAX);
	CHECK(oc.n.unended == 1 && oc.n.unpaired == 1 && s.by_ip[4] == 5000);
	vmstack_off_cpu_free(&oc);
}

UNIT_TEST(off_cpu_prune_and_reuse)
{
	const uint64_t ms = 1000000;
	struct vmstack_off_cpu oc;
	struct seen s = { 0 };
	struct rec r;

	vmstack_off_cpu_init(&oc, 1000, fn, &s);
	/*
	 * A thread of no process (pid 2,000,000,000 is above any pid_max)
	 * switches out at 1 s and at 11.99 s: the drain at 12 s holds the
	 * second, and its prune finds the thread gone, which keeps the first
	 * until the next prune: the next drain pairs them (10.99 s).
	 */
	make(&r, 11, 1, 1000 * ms, 0, 1, 0);
	r.s.pid = 2000000000;
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, 2000 * ms);
	make(&r, 11, 2, 11990 * ms, 0, 2, 0);
	r.s.pid = 2000000000;
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, 12000 * ms);
	CHECK(oc.batch_n == 1 && !oc.n.unended);
	vmstack_off_cpu_settle(&oc, 12100 * ms);
	CHECK(s.by_ip[1] == 10990000 && !oc.n.unended && oc.n.waits == 1);
	/* The prune after the next 10 s drops it: gone at two prunes. */
	vmstack_off_cpu_settle(&oc, 22200 * ms);
	vmstack_off_cpu_settle(&oc, 32300 * ms);
	CHECK(oc.n.unended == 1);
	/*
	 * Thread 12 reused: a later record with more switches but less CPU
	 * time than the one kept is a new thread's, not a gap.
	 */
	make(&r, 12, 3, 40000 * ms, 500 * ms, 5, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	make(&r, 12, 4, 40100 * ms, 10 * ms, 50, 0);
	vmstack_off_cpu_take(&oc, &r.s);
	vmstack_off_cpu_settle(&oc, UINT64_MAX);
	CHECK(!oc.n.gaps && oc.n.unended == 2 && !s.by_ip[3]);
	vmstack_off_cpu_free(&oc);
}
