/* SPDX-License-Identifier: GPL-2.0 */
/* SESSION_STATS's attributes (netlink_stats.c): counters and histogram. */
#ifndef _VMSTACK_NETLINK_STATS_H
#define _VMSTACK_NETLINK_STATS_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct vmstack_session;

/* Every counter of @cpu (0..nr_rings-1), or all CPUs summed (-1). */
void vmstack_sum_counters(struct vmstack_session *s, int cpu, u64 *sum);
/* A nest @type of every counter in @v, and @cpu unless it is -1. */
int vmstack_put_counters(struct sk_buff *msg, int type, int cpu, const u64 *v);
/* The handler time histogram of all CPUs together, as one attribute. */
int vmstack_put_hist(struct sk_buff *msg, struct vmstack_session *s);

#endif /* _VMSTACK_NETLINK_STATS_H */
