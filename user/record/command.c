// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "entry_hold.h"
#include "maps.h"
#include "needed.h"
#include "process.h"
#include "util.h"

/* Where execvp will find @cmd, or NULL. */
static char *find_in_path(const char *cmd)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return xstrdup(cmd);
	return find_in_dirs(path ? path : "/usr/bin:/bin", cmd, X_OK);
}

/* Traced, to be held at its entry, unless that costs it its privileges. */
static void trace(struct vmstack_command *c, const char *cmd)
{
	char *exe = find_in_path(cmd);

	if (exe && !vmstack_entry_hold_unsafe(exe))
		vmstack_entry_hold_attach(&c->hold, c->pid);
	free(exe);
}

/* A second pipe, closed by a successful exec, brings back exec's errno. */
int vmstack_command_start(char **cmd, struct vmstack_command *c, int hold)
{
	int go[2], err[2];
	char byte;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(go[1]);
		close(err[0]);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		byte = (char)errno;
		if (write(err[1], &byte, 1) != 1)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	if (hold)
		trace(c, cmd[0]);
	return 0;
}

int vmstack_command_release(struct vmstack_command *c)
{
	char byte = 0;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1)
		return EPIPE;
	close(c->go_fd);
	/*
	 * Traced, it stops for its signals too, before exec as after: they
	 * are passed on while it runs to its entry, before the pipe is read.
	 * A failed exec ends it (left for end_command to reap). Bounded: a
	 * command that never reaches its entry is let go.
	 */
	vmstack_entry_hold_wait(&c->hold, 5.0);
	n = read(c->err_fd, &byte, 1);
	close(c->err_fd);
	return n == 1 ? (byte ? byte : ENOEXEC) : 0;
}

void vmstack_command_go(struct vmstack_command *c)
{
	vmstack_entry_hold_release(&c->hold);
}

/*
 * The C library and loader are the ones we map too. Reading the rules
 * once mapped took 35-65 ms a library under TCG, and the C library's
 * rules waited behind the others: the first samples had none.
 */
void vmstack_command_prewarm(struct vmstack_process *proc, const char *cmd)
{
	char *exe = find_in_path(cmd), line[4200], dirs[8192], *libs[64];
	const char *ld_path = getenv("LD_LIBRARY_PATH");
	struct vmstack_map m;
	size_t i, n;
	int libc_dir = 0, is_libc;
	FILE *f;

	/* Where the loader looks: LD_LIBRARY_PATH, then beside our libc. */
	snprintf(dirs, sizeof(dirs), "%s", ld_path ? ld_path : "");
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (vmstack_map_parse(line, &m) || m.perms[2] != 'x')
			continue;
		is_libc = strstr(m.path, "/libc.so") != NULL;
		if (is_libc && !libc_dir++)
			snprintf(dirs + strlen(dirs), sizeof(dirs) - strlen(dirs),
				 ":%.*s:/usr/local/lib",
				 (int)(strrchr(m.path, '/') - m.path), m.path);
		if (is_libc || strstr(m.path, "/ld-linux"))
			vmstack_process_prewarm(proc, m.path);
	}
	if (f)
		fclose(f);
	if (!exe)
		return;
	vmstack_process_prewarm(proc, exe);
	n = vmstack_needed(exe, dirs, libs, sizeof(libs) / sizeof(libs[0]));
	for (i = 0; i < n; i++) {
		vmstack_process_prewarm(proc, libs[i]);
		free(libs[i]);
	}
	free(exe);
}

