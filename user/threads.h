/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a target's threads, by thread id: read from /proc when a
 * thread's first sample arrives (it may be gone by the end), kept in raw
 * recordings, and given to formats that label samples by thread (pprof's
 * thread_name).
 */
#ifndef VMSTACK_THREADS_H
#define VMSTACK_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vmstack_thread {
	uint32_t tid;		/* 0: a free slot */
	char name[16];		/* the kernel's comm: at most 15 characters */
};

struct vmstack_threads {
	struct vmstack_thread *slots;
	size_t nslots, n;
};

void vmstack_threads_init(struct vmstack_threads *t);
void vmstack_threads_free(struct vmstack_threads *t);
/* Set thread @tid's name (a second call for the same tid replaces it). */
void vmstack_threads_set(struct vmstack_threads *t, uint32_t tid, const char *name);
/* Read /proc/PID/task/TID/comm if @tid has no name yet. */
void vmstack_threads_note(struct vmstack_threads *t, int pid, uint32_t tid);
/* Thread @tid's name, or NULL if unknown. */
const char *vmstack_threads_name(const struct vmstack_threads *t, uint32_t tid);
/* "TID NAME" lines, for raw recordings (raw_file.c reads them back). */
int vmstack_threads_write(const struct vmstack_threads *t, FILE *f);

#endif
