// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-record: sample a process (or a command it starts, a cgroup, the
 * whole machine) with vmstack.ko and write its stacks, named, in one of
 * the output formats.
 *
 * main() is the recipe; each step is a layer of this folder (record.h).
 * A command held before exec is command.c; the target's VMs vm/attach.c;
 * naming process.c, file.c and profile.c; formats output/; the module's
 * protocol vmstack_nl.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "clock.h"
#include "command.h"
#include "record.h"

/*
 * Fork the command, held before exec: its process is the target. With
 * unwind rules to give, held at its entry point too.
 */
static int start_command(struct record_options *o, struct vmstack_command *cmd)
{
	if (vmstack_command_start(o->cmd, cmd, o->cfi)) {
		fprintf(stderr, TOOL ": cannot start %s: %s\n", o->cmd[0], strerror(errno));
		return -1;
	}
	o->pids[0] = cmd->pid;
	o->npids = 1;
	return 0;
}

static int check_pids(const struct record_options *o)
{
	size_t i;

	for (i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, TOOL ": no process with PID %d\n", o->pids[i]);
			return -1;
		}
	return 0;
}

/*
 * Stopped just after exec: its program and loader are mapped, the
 * libraries not yet. Their rules go up now, so that the loader's own work
 * (a tenth of a short run on a slow kernel) is unwound too.
 */
static void describe_at_exec(void *arg)
{
	struct vmstack_target *t = arg;

	vmstack_process_refresh(t->proc);
}

/* Sampling is on: the command runs exec, up to its entry point. */
static int release_command(const struct record_options *o, struct vmstack_command *cmd,
			   struct vmstack_target *t)
{
	int err;

	cmd->hold.at_exec = describe_at_exec;
	cmd->hold.at_exec_arg = t;
	err = vmstack_command_release(cmd);

	if (err) {
		fprintf(stderr, TOOL ": cannot run %s: %s\n", o->cmd[0], strerror(err));
		return -1;
	}
	return 0;
}

/* Described at its entry point: the command runs on (--stats: how long it waited). */
static void let_go(struct recording *r, struct vmstack_command *cmd, double released)
{
	r->command_held_ms = cmd->hold.held ? 1e3 * (record_now() - released) : -1;
	vmstack_command_go(cmd);
}

/*
 * A command we started: ended if it still runs, reaped either way. Its
 * own exit counts, not a child's (--children): the count of exited
 * targets took a child's for it, and the recorder waited for a command
 * it never ended.
 */
static void end_command(struct vmstack_command *cmd, int running, int exited)
{
	int status;

	if (cmd->pid <= 0)
		return;
	vmstack_command_go(cmd);
	if (!exited)
		kill(cmd->pid, running ? SIGTERM : SIGKILL);
	waitpid(cmd->pid, &status, 0);
}

int main(int argc, char **argv)
{
	static uint64_t hist[VMSTACK_HIST_BUCKETS];
	struct vmstack_command cmd = { .pid = -1 };
	struct record_options o;
	struct recording r = { .o = &o, .command_held_ms = -1 };
	struct vmstack_cpu_counts c;
	int err = -1, running = 0;
	double started;

	if (record_options_parse(argc, argv, &o))
		return 2;
	if (record_session_connect(&r.session))
		return 1;
	if (o.cmd && start_command(&o, &cmd))
		goto out_connection;
	if (check_pids(&o) || record_series_open(&r))
		goto out_command;
	if (record_session_start(&r.session, &o))
		goto out_session;
	record_intake_init(&r);
	record_targets_open(&r.targets, &o, &r.session);
	record_catch_signals(o.every > 0);
	/* A command's maps are read once it has run exec, below. */
	if (o.cmd && o.cfi)
		vmstack_command_prewarm(r.targets.t[0].proc, o.cmd[0]);
	record_targets_join_running(&r.targets);
	if (record_targets_vm_file(&r.targets) || record_session_resume(&r.session))
		goto out_targets;
	started = record_now();
	record_interval_begin(&r, started, 0);
	if (o.cmd && release_command(&o, &cmd, &r.targets.t[0]))
		goto out_targets;
	running = o.cmd != NULL;
	record_targets_describe(&r.targets);
	if (o.cmd)
		let_go(&r, &cmd, started);

	record_loop(&r);

	record_session_stop(&r.session);
	r.duration_ns = (uint64_t)((record_now() - started) * 1e9);
	record_drain(&r);
	record_intake_end(&r);
	record_session_counts(&r.session, &c, hist);
	record_targets_load_perf_maps(&r.targets);
	err = o.every ? record_write_interval(&r) :
	      record_write_output(&r, VMSTACK_CNT(&c, DROPPED));
	if (o.raw && record_write_raw(&r, &c))
		err = -1;
	record_summary(&r, &c, hist);

out_targets:
	record_targets_close(&r.targets);
	record_intake_free(&r);
out_session:
	record_session_end(&r.session);
out_command:
	end_command(&cmd, running, r.targets.command_exited);
out_connection:
	record_session_disconnect(&r.session);
	return err ? 1 : 0;
}
