/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmstack-probe's files share (see the comment at the top of
 * vmstack-probe.c): the clock, a session with its rings mapped, the least
 * descriptor the module takes, and one entry per subcommand.
 */
#ifndef VMSTACK_PROBE_H
#define VMSTACK_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "ring_reader.h"
#include "vmstack_nl.h"

/* The end of user space with 4-level paging, as the guest kernel has it. */
#define USER_END	0x7ffffffff000ULL

/* Seconds on the monotonic clock. */
double now(void);
/* A vmstack_sample_fn: counts samples in the unsigned long at @arg. */
void count_sample(const struct vmstack_rec_sample *rec, void *arg);
/* A session on @pid with its rings mapped (views in v[]). 0 or -1. */
int open_mapped(struct vmstack_nl *nl, struct vmstack_start_req *req,
		struct vmstack_started *s, void **area, size_t *size,
		struct vmstack_ring_view *v);
/* The least descriptor the module takes: one range, a program of no frames. */
void least_desc(struct vmstack_vm_desc4 *d);

/* The subcommands, each as the top of vmstack-probe.c describes it. */
int fuzz(double secs, unsigned seed, int target);	/* fuzz.c */
int vmfuzz(int pid, double secs, unsigned seed);	/* vmfuzz.c */
int intrude(double secs);				/* safety.c */
int forkcheck(int pid);
int hotplug(int pid, int cpu);
int hostile(int pid, double secs);
int targets(int pid, int other, double secs);		/* bookkeeping.c */
int memcap(int pid, int other);
int pidns(int other);
int genlwait(int pid, double secs);
int wake(int pid, double secs, unsigned int pages, unsigned int freq); /* wake.c */

#endif
