// SPDX-License-Identifier: GPL-2.0
/* A command held at its entry point (entry_hold.h says why). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "entry_hold.h"

#define INT3 0xcc

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int vmstack_entry_hold_unsafe(const char *path)
{
	struct stat s;

	/* Root keeps them: exec under a tracer with CAP_SYS_PTRACE. */
	if (geteuid() == 0)
		return 0;
	if (stat(path, &s))
		return 1;
	return (s.st_mode & (S_ISUID | S_ISGID)) ||
	       getxattr(path, "security.capability", NULL, 0) >= 0;
}

int vmstack_entry_hold_attach(struct vmstack_entry_hold *h, pid_t pid)
{
	long opts = PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;

	*h = (struct vmstack_entry_hold){ .pid = pid };
	/* SEIZE, not a TRACEME in the child: a refusal is known here, now. */
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)opts))
		return -1;
	h->traced = 1;
	return 0;
}

/*
 * The next stop of @pid, consumed, its status in @st: 0; 1 if @deadline
 * came first; -1 if it exited, left unreaped (for end_command, which
 * waits for the command's exit) since only a peek (WNOWAIT) saw it.
 */
static int next_stop(pid_t pid, double deadline, int *st)
{
	const struct timespec nap = { 0, 200 * 1000 };
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si,
			   WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL)) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (si.si_pid == pid && si.si_code == CLD_TRAPPED)
			return waitpid(pid, st, __WALL) == pid ? 0 : -1;
		if (si.si_pid == pid)
			return -1;
		if (now() >= deadline)
			return 1;
		nanosleep(&nap, NULL);
	}
}

/* AT_ENTRY of the image @pid has just exec'd, or 0. */
static uint64_t auxv_entry(pid_t pid)
{
	uint64_t av[2], entry = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!entry && fread(av, sizeof(av), 1, f) == 1 && av[0] != AT_NULL)
		if (av[0] == AT_ENTRY)
			entry = av[1];
	fclose(f);
	return entry;
}

/* An int3 over the first byte at the entry; the word it was, in @word. */
static int plant(struct vmstack_entry_hold *h, long *word)
{
	h->entry = auxv_entry(h->pid);
	if (!h->entry)
		return -1;
	errno = 0;
	*word = ptrace(PTRACE_PEEKTEXT, h->pid, (void *)h->entry, NULL);
	if (errno)
		return -1;
	return ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry,
		      (void *)((*word & ~0xffL) | INT3)) ? -1 : 0;
}

/*
 * Stopped by our int3 (rip just past it)? Then the entry is as it was
 * and rip on it again: 0. Else -1, untouched.
 */
static int undo_at_entry(struct vmstack_entry_hold *h, long word)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, h->pid, NULL, &regs) || regs.rip != h->entry + 1)
		return -1;
	regs.rip = h->entry;
	if (ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry, (void *)word) ||
	    ptrace(PTRACE_SETREGS, h->pid, NULL, &regs))
		return -1;
	return 0;
}

int vmstack_entry_hold_wait(struct vmstack_entry_hold *h, double timeout_s)
{
	double deadline = now() + timeout_s;
	int st, r, sig = 0, event, poked = 0, interrupted = 0;
	long word = 0;

	if (!h->traced)
		return -1;
	for (;;) {
		r = next_stop(h->pid, deadline, &st);
		if (r < 0) {
			h->traced = 0;
			return -1;
		}
		if (r > 0) {
			/*
			 * Never at its entry: stopped wherever it is, to let go.
			 * Not even that within a second: left traced (and killed
			 * with the recorder), as no detach is possible.
			 */
			if (interrupted || ptrace(PTRACE_INTERRUPT, h->pid, NULL, NULL))
				return -1;
			interrupted = 1;
			deadline = now() + 1.0;
			continue;
		}
		event = st >> 16;
		sig = event ? 0 : WSTOPSIG(st);
		/*
		 * Each exec: a new image, the old one's breakpoint gone with it
		 * (a library's constructor may exec again).
		 */
		if (event == PTRACE_EVENT_EXEC) {
			poked = !plant(h, &word);
			if (!poked)
				break;
			if (h->at_exec)
				h->at_exec(h->at_exec_arg);
		} else if (sig == SIGTRAP && poked && !undo_at_entry(h, word)) {
			h->held = 1;
			return 0;
		} else if (event || interrupted) {
			/* A group stop (SIGSTOP and the like) stays one once detached. */
			break;
		}
		/* Its own signals go on to it. */
		if (ptrace(PTRACE_CONT, h->pid, NULL, (void *)(long)sig))
			break;
	}
	if (poked)
		ptrace(PTRACE_POKETEXT, h->pid, (void *)h->entry, (void *)word);
	ptrace(PTRACE_DETACH, h->pid, NULL, (void *)(long)sig);
	h->traced = 0;
	return -1;
}

void vmstack_entry_hold_release(struct vmstack_entry_hold *h)
{
	if (h->traced)
		ptrace(PTRACE_DETACH, h->pid, NULL, NULL);
	h->traced = 0;
	h->held = 0;
}
