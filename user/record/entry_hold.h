/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command held at its entry point (issue 28, "the exec window"). Once
 * released from the pipe it runs exec, its loader maps the C library and
 * the rest, and it ran its first tens of milliseconds before the
 * recorder had read its maps and given the module their unwind rules:
 * those samples stopped at the C library's frame. Traced from before
 * exec, it stops at exec; a breakpoint at its entry (AT_ENTRY: the
 * program's _start, or the interpreter's for #!) stops it again once the
 * loader has mapped every library it needs, before the program's first
 * instruction. The recorder describes it there, then lets it go.
 *
 * Not held (the command runs as before): when tracing is refused (EPERM
 * under seccomp, an LSM, Yama), or would cost the command its privileges
 * (a set-user-ID, set-group-ID or file-capability program run by a
 * recorder that is not root). x86-64 only, as the recorder is.
 */
#ifndef VMSTACK_ENTRY_HOLD_H
#define VMSTACK_ENTRY_HOLD_H

#include <stdint.h>
#include <sys/types.h>

struct vmstack_entry_hold {
	pid_t pid;
	int traced;		/* attached: stops come to us */
	int held;		/* stopped at its entry, undone breakpoint */
	uint64_t entry;
	/*
	 * Called at each exec stop, before the image runs on to its entry:
	 * the loader's own rules must be up before the loader runs (on a
	 * slow kernel its mmap calls are a tenth of a short run). Optional.
	 */
	void (*at_exec)(void *arg);
	void *at_exec_arg;
};

/*
 * Would tracing program @path cost it its privileges? 1 if so (or
 * unknown): then it is not held.
 */
int vmstack_entry_hold_unsafe(const char *path);
/*
 * Trace @pid, a child not yet at exec, so that its exec stops. 0, or -1
 * (it runs untraced). Its death (or ours) while traced kills it.
 */
int vmstack_entry_hold_attach(struct vmstack_entry_hold *h, pid_t pid);
/*
 * Its exec succeeded: run it to its entry point and keep it stopped
 * there, waiting at most @timeout_s. 0 held, -1 not (detached, running
 * or exited: its exit is left for the caller to reap).
 */
int vmstack_entry_hold_wait(struct vmstack_entry_hold *h, double timeout_s);
/* Let it go (detached), held or not; no-op if not traced. */
void vmstack_entry_hold_release(struct vmstack_entry_hold *h);

#endif
