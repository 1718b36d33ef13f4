// SPDX-License-Identifier: GPL-2.0
/*
 * A session's statistics as SESSION_STATS answers them: its per-CPU
 * counters, summed for one CPU or all, and its handler-time histogram,
 * as attributes. netlink.c's handlers build the messages around them.
 */
#include <linux/percpu.h>
#include <net/netlink.h>
#include "netlink_stats.h"
#include "session.h"

/* Every counter of @cpu (0..nr_rings-1), or all CPUs summed (-1). */
void vmstack_sum_counters(struct vmstack_session *s, int cpu, u64 *sum)
{
	unsigned int c, i;

	memset(sum, 0, sizeof(u64) * VMSTACK_NR_COUNTERS);
	for_each_possible_cpu(c) {
		struct vmstack_cpu_stats *st = &per_cpu_ptr(s->pcpu, c)->stats;

		if (c >= s->nr_rings || (cpu >= 0 && c != cpu))
			continue;
		for (i = 0; i < VMSTACK_NR_COUNTERS; i++)
			sum[i] += local64_read(&st->counter[i]);
	}
}

/* A nest @type of every counter in @v, and @cpu unless it is -1. */
int vmstack_put_counters(struct sk_buff *msg, int type, int cpu, const u64 *v)
{
	struct nlattr *nest = nla_nest_start(msg, type);
	int i;

	if (!nest)
		return -EMSGSIZE;
	if (cpu >= 0 && nla_put_u32(msg, VMSTACK_CS_A_CPU, cpu))
		goto cancel;
	for (i = 0; i < VMSTACK_NR_COUNTERS; i++)
		if (nla_put_u64_64bit(msg, VMSTACK_CS_A_FIRST_COUNTER + i, v[i],
				      VMSTACK_CS_A_PAD))
			goto cancel;
	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/*
 * The handler time histogram of all CPUs together. An attribute's data is
 * only 4-byte aligned: each sum is copied in, never stored through a u64
 * pointer (UBSAN's alignment check caught that).
 */
int vmstack_put_hist(struct sk_buff *msg, struct vmstack_session *s)
{
	struct nlattr *attr;
	unsigned int cpu, b;
	u8 *data;
	u64 sum;

	attr = nla_reserve(msg, VMSTACK_A_HANDLER_HIST,
			   sizeof(u64) * VMSTACK_HIST_BUCKETS);
	if (!attr)
		return -EMSGSIZE;
	data = nla_data(attr);
	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++) {
		sum = 0;
		for_each_possible_cpu(cpu) {
			if (cpu >= s->nr_rings)
				break;
			sum += READ_ONCE(per_cpu_ptr(s->pcpu, cpu)->stats.hist[b]);
		}
		memcpy(data + b * sizeof(sum), &sum, sizeof(sum));
	}
	return 0;
}
