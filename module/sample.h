/* SPDX-License-Identifier: GPL-2.0 */
/* The perf overflow handler (sample.c), which every session's event calls. */
#ifndef _VMSTACK_SAMPLE_H
#define _VMSTACK_SAMPLE_H

struct perf_event;
struct perf_sample_data;
struct pt_regs;

void vmstack_overflow(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs);

#endif /* _VMSTACK_SAMPLE_H */
