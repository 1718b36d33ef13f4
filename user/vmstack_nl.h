/* SPDX-License-Identifier: GPL-2.0 */
/* Client of the vmstack generic netlink family (libnl-genl). */
#ifndef VMSTACK_NL_H
#define VMSTACK_NL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

struct vmstack_nl;

struct vmstack_status {
	uint32_t abi_major, abi_minor;
	uint32_t nr_sessions;
	char module_version[32];
};

struct vmstack_start_req {
	uint32_t pid;
	uint32_t freq;
	uint32_t event;
	uint32_t stacks;
	uint32_t max_depth;
	uint32_t ring_pages;
	int paused;
	/* The target is one thread held from cloning: one event it passes on. */
	int task_events;
	/* 3.5, instead of @pid: every process, or a cgroup's (a directory fd). */
	int all;
	int children;		/* with task_events: child processes too */
	int cgroup;		/* cgroup_fd is the cgroup's */
	int cgroup_fd;
};

struct vmstack_started {
	uint32_t session_id;	/* for display: requests name the fd */
	int fd;
	uint32_t nr_cpus;
	uint32_t ring_pages;
	uint32_t freq;		/* granted (the rate asked for: perf throttles) */
	int task_events;	/* asked for (the module knows it) */
};

/* One CPU's counters, by VMSTACK_COUNTER(VMSTACK_CS_A_*). */
struct vmstack_cpu_counts {
	uint64_t v[VMSTACK_NR_COUNTERS];
};
/* The counter VMSTACK_CS_A_<name> of counts @c. */
#define VMSTACK_CNT(c, name)	((c)->v[VMSTACK_COUNTER(VMSTACK_CS_A_##name)])

/*
 * Every call returns 0 or a negative errno; on failure err_msg (if not
 * NULL) holds a sentence for the user: the kernel's extended ack message
 * when it sent one.
 */
int vmstack_nl_open(struct vmstack_nl **nlp, char *err_msg, size_t len);
void vmstack_nl_close(struct vmstack_nl *nl);
int vmstack_nl_status(struct vmstack_nl *nl, struct vmstack_status *st,
		      char *err_msg, size_t len);
/* Opens the connection and checks that the module speaks our ABI. */
int vmstack_nl_connect(struct vmstack_nl **nlp, char *err_msg, size_t len);
/* The same, and the status it read for the check in @st. */
int vmstack_nl_connect_status(struct vmstack_nl **nlp, struct vmstack_status *st,
			      char *err_msg, size_t len);
int vmstack_nl_session_start(struct vmstack_nl *nl,
			     const struct vmstack_start_req *req,
			     struct vmstack_started *out,
			     char *err_msg, size_t len);
/* Every other request names its session by the fd SESSION_START gave. */
int vmstack_nl_session_stop(struct vmstack_nl *nl, int fd,
			    char *err_msg, size_t len);
int vmstack_nl_session_resume(struct vmstack_nl *nl, int fd,
			      char *err_msg, size_t len);
/*
 * The counters of all CPUs summed into *sum; the handler time histogram
 * (all CPUs, VMSTACK_HIST_BUCKETS entries) into @hist unless NULL.
 */
int vmstack_nl_session_stats(struct vmstack_nl *nl, int fd,
			     struct vmstack_cpu_counts *sum, uint64_t *hist,
			     char *err_msg, size_t len);
/*
 * The bucket of such a histogram in which a fraction @q of its samples is
 * reached, or VMSTACK_HIST_BUCKETS when it is empty.
 */
static inline unsigned int vmstack_hist_bucket_at(const uint64_t *hist, double q)
{
	uint64_t total = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++)
		total += hist[b];
	for (b = 0; total && b < VMSTACK_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= q * total)
			return b;
	}
	return VMSTACK_HIST_BUCKETS;
}
/* Each CPU's counters, counts[0..max) by CPU; *nr_cpus as reported. */
int vmstack_nl_cpu_stats(struct vmstack_nl *nl, int fd,
			 struct vmstack_cpu_counts *counts, unsigned int max,
			 unsigned int *nr_cpus, char *err_msg, size_t len);

/*
 * Add process @pid to the session's targets, or forget it (ABI 3.4; an
 * older module: -EOPNOTSUPP and a message that says so).
 */
int vmstack_nl_target_add(struct vmstack_nl *nl, int fd, uint32_t pid,
			  char *err_msg, size_t len);
int vmstack_nl_target_del(struct vmstack_nl *nl, int fd, uint32_t pid,
			  char *err_msg, size_t len);

/*
 * 3.5: the rows uploaded under @key placed at target @pid's [start, end):
 * 0; -ENOENT if the session has none (upload them), -EOPNOTSUPP for an
 * older module.
 */
int vmstack_nl_unwind_place(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			    uint64_t start, uint64_t end, uint64_t *bytes,
			    char *err_msg, size_t len);

/*
 * One chunk of a table of @total rows: rows @first... (@n of them, at most
 * VMSTACK_UW_CHUNK_ROWS), as vmstack_nl_unwind_add() sends them.
 */
int vmstack_nl_unwind_chunk(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			    uint64_t start, uint64_t end, size_t total, size_t first,
			    const struct vmstack_uw_row *rows, size_t n, uint64_t *bytes,
			    char *err_msg, size_t len);
/*
 * Unwind rows for target @pid's mapping [start, end) (@pid 0: the first
 * target), sent in chunks, known under @key as well (0: none; only to a
 * module of ABI 3.5 or later); sets *bytes to the memory the session's
 * tables take in the module.
 */
int vmstack_nl_unwind_add(struct vmstack_nl *nl, int fd, uint32_t pid, uint64_t key,
			  uint64_t start,
			  uint64_t end, const struct vmstack_uw_row *rows,
			  size_t n, uint64_t *bytes, char *err_msg, size_t len);

/*
 * A VM of target @pid (0: the first): its ABI 4 descriptor of @desc_len
 * bytes (sizeof(struct vmstack_vm_desc4) but in tests).
 */
int vmstack_nl_vm_add(struct vmstack_nl *nl, int fd, uint32_t pid, const void *desc,
		      size_t desc_len, char *err_msg, size_t len);

#endif
