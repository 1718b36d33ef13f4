// SPDX-License-Identifier: GPL-2.0
/*
 * A command held at its entry point (user/record/entry_hold.h), run for
 * real: stopped on its first instruction with its libraries mapped, then
 * let go to its own exit; a failed exec and a signal before exec as
 * before the hold.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/command.h"
#include "unit.h"

static int maps_have(pid_t pid, const char *part)
{
	char path[64], line[4200];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, part) != NULL;
	if (f)
		fclose(f);
	return found;
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/*
 * @argv started, held and let go: its wait status. At the stop, rip is on
 * the entry, the entry's byte is the program's again, libc is mapped
 * (@dynamic) or not.
 */
static int run_held(char **argv, int dynamic)
{
	struct vmstack_command c = { .pid = -1 };
	struct user_regs_struct regs;
	int status = -1;
	long word;
	double t0;

	CHECK(!vmstack_command_start(argv, &c, 1));
	CHECK(c.hold.traced);
	t0 = ms_now();
	CHECK(!vmstack_command_release(&c));
	CHECK(c.hold.held);
	if (c.hold.held) {
		fprintf(stderr, "  %s: exec to entry %.1f ms\n", argv[0], ms_now() - t0);
		CHECK(!ptrace(PTRACE_GETREGS, c.pid, NULL, &regs));
		CHECK(regs.rip == c.hold.entry);
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, c.pid, (void *)c.hold.entry, NULL);
		CHECK(!errno && (word & 0xff) != 0xcc);
		CHECK(maps_have(c.pid, "/libc.so") == dynamic);
	}
	vmstack_command_go(&c);
	CHECK(!c.hold.traced);
	CHECK(waitpid(c.pid, &status, 0) == c.pid);
	return status;
}

UNIT_TEST(entry_hold_runs_to_exit)
{
	char *yes[] = { "/bin/true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };
	int st;

	st = run_held(yes, 1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Found on PATH, as execvp finds it. */
	st = run_held(three, 1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* A static program: its own _start is the entry. */
UNIT_TEST(entry_hold_static)
{
	char *bb[] = { "/usr/bin/busybox", "sh", "-c", "exit 5", NULL };
	int st;

	if (access(bb[0], X_OK)) {
		fprintf(stderr, "  %s (static) is missing\n", bb[0]);
		unit_failed = 1;
		return;
	}
	st = run_held(bb, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* A script: held at its interpreter's entry. */
UNIT_TEST(entry_hold_script)
{
	char path[] = "/tmp/vmstack-entry-hold-XXXXXX";
	char *script[] = { path, NULL };
	int fd = mkstemp(path), st;

	CHECK(fd >= 0 && write(fd, "#!/bin/sh\nexit 4\n", 18) == 18);
	CHECK(!fchmod(fd, 0700) && !close(fd));
	st = run_held(script, 1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 4);
	unlink(path);
}

UNIT_TEST(entry_hold_failed_exec)
{
	char *none[] = { "/nonexistent/vmstack-no-such-command", NULL };
	struct vmstack_command c = { .pid = -1 };
	int st = 0;

	CHECK(!vmstack_command_start(none, &c, 1));
	CHECK(vmstack_command_release(&c) == ENOENT);
	vmstack_command_go(&c);
	/* Its exit is still there to reap. */
	CHECK(waitpid(c.pid, &st, 0) == c.pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 127);
}

/* A signal that came before exec reaches it, as it did untraced. */
UNIT_TEST(entry_hold_passes_signals)
{
	char *yes[] = { "/bin/true", NULL };
	struct vmstack_command c = { .pid = -1 };
	int st = 0;

	CHECK(!vmstack_command_start(yes, &c, 1));
	CHECK(c.hold.traced);
	kill(c.pid, SIGUSR1);
	CHECK(!vmstack_command_release(&c));
	CHECK(!c.hold.held);
	vmstack_command_go(&c);
	CHECK(waitpid(c.pid, &st, 0) == c.pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
}

/* Not held: it runs as before the hold. */
UNIT_TEST(entry_hold_off)
{
	char *three[] = { "sh", "-c", "exit 3", NULL };
	struct vmstack_command c = { .pid = -1 };
	int st = 0;

	CHECK(!vmstack_command_start(three, &c, 0));
	CHECK(!c.hold.traced);
	CHECK(!vmstack_command_release(&c));
	vmstack_command_go(&c);
	CHECK(waitpid(c.pid, &st, 0) == c.pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* The recorder killed while it holds one: the command dies too. */
UNIT_TEST(entry_hold_tracer_killed)
{
	char *sl[] = { "sleep", "10", NULL };
	int p[2], st = 0;
	pid_t helper, pid = -1;

	/* Its command, orphaned, comes back to us to reap. */
	CHECK(!prctl(PR_SET_CHILD_SUBREAPER, 1) && !pipe(p));
	helper = fork();
	if (!helper) {
		struct vmstack_command c = { .pid = -1 };

		if (vmstack_command_start(sl, &c, 1) || vmstack_command_release(&c) ||
		    !c.hold.held || write(p[1], &c.pid, sizeof(c.pid)) != sizeof(c.pid))
			_exit(1);
		_exit(0);
	}
	CHECK(read(p[0], &pid, sizeof(pid)) == sizeof(pid));
	CHECK(waitpid(helper, &st, 0) == helper && WIFEXITED(st) && !WEXITSTATUS(st));
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(p[0]);
	close(p[1]);
}

/*
 * A set-user-ID program run by a recorder that is not root: not traced,
 * which would cost it its privileges. Root keeps them under a tracer.
 */
UNIT_TEST(entry_hold_setuid)
{
	char path[] = "/tmp/vmstack-entry-hold-XXXXXX";
	int fd = mkstemp(path), st = -1;
	pid_t pid;

	CHECK(fd >= 0 && !fchmod(fd, 04755) && !close(fd));
	if (geteuid() == 0) {
		CHECK(!vmstack_entry_hold_unsafe(path));
		pid = fork();
		if (!pid)
			_exit(setuid(65534) ? 2 : vmstack_entry_hold_unsafe(path) ? 0 : 1);
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
	} else {
		CHECK(vmstack_entry_hold_unsafe(path));
	}
	CHECK(!chmod(path, 0755));
	CHECK(!vmstack_entry_hold_unsafe(path));
	unlink(path);
}
