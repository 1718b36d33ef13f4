/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process a recording samples, and what naming its samples takes: its
 * process object (mappings, their files, VM names; user/process.h), its
 * VMs, its name. A recording holds one per target (-p PID,PID..., or a
 * command); records find theirs by process ID.
 */
#ifndef VMSTACK_TARGET_H
#define VMSTACK_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "vm/attach.h"

struct vmstack_process;

struct vmstack_py_tramp;

struct vmstack_target {
	int pid;
	int pidfd;		/* -1: none (watched with kill(pid, 0)) */
	char comm[64];
	char cgroup[256];	/* its cgroup v2 path ("" if none), as /proc says */
	int exited;
	int counted_exit;	/* the recording has seen it exit */
	int described;		/* the module has its rules and VMs (-a: may not) */
	int maps_stale;		/* a sample ran in a mapping not read yet */
	double refreshed;	/* when its mappings were last read (CLOCK_MONOTONIC s) */
	double changed;		/* when a read last found a new mapping */
	struct vmstack_process *proc;
	struct vmstack_vm_attach vms;
	char vm_file[64];	/* what it registers with libvmstack */
	struct vmstack_py_tramp *py_tramp;	/* CPython's perf trampolines, or NULL */
	void *owner;		/* its set (record/targets.h), for callbacks */
	/* Its name when last looked at (record/setuid_watch.c). */
	char seen_name[64];
	int setuid_exec;	/* exec'd into setuid ids: perf removed its events */
};

/* Open @t on process @pid (pidfd, process object, name, cgroup). */
void vmstack_target_open(struct vmstack_target *t, int pid, void *owner);
void vmstack_target_close(struct vmstack_target *t);
/* Read the process's name again (it changes at exec). */
void vmstack_target_read_comm(struct vmstack_target *t);
/* Did it exit? Looks without waiting. */
int vmstack_target_gone(struct vmstack_target *t);

/* Process @pid's cgroup v2 path ("/a/b") into @buf; 0, or -1 if none. */
int vmstack_target_cgroup(int pid, char *buf, size_t len);
/* --cgroup's directory: a relative path is under the unified hierarchy's mount. */
void vmstack_cgroup_dir(const char *arg, char *buf, size_t len);
/* Is cgroup @cg (as /proc/PID/cgroup names it) @dir or below it? */
int vmstack_cgroup_within(const char *cg, const char *dir);
/* Up to @max processes running or runnable now (state R), by reading /proc. */
size_t vmstack_procs_running(int *pids, size_t max);

/* When process @pid started, in CLOCK_BOOTTIME seconds (1/CLK_TCK steps), or -1. */
double vmstack_target_started(int pid);

/* The target of process @pid among @n (closed ones skipped), or NULL. */
struct vmstack_target *vmstack_target_find(struct vmstack_target *t, size_t n, int pid);

#endif
