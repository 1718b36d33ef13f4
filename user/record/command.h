/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command the recorder runs: forked and held before exec on a pipe, so
 * sampling covers it from its first instruction, with its files' symbols
 * and unwind rules read before it maps them.
 */
#ifndef VMSTACK_COMMAND_H
#define VMSTACK_COMMAND_H

#include <sys/types.h>

struct vmstack_process;

struct vmstack_command {
	pid_t pid;
	int go_fd;
	int err_fd;
};

/* Fork @argv held before exec. 0, or -1 (errno). */
int vmstack_command_start(char **argv, struct vmstack_command *c);
/*
 * Read the symbols and unwind rules of the files @argv[0] will map: its
 * executable, the C library and loader, the libraries it names.
 */
void vmstack_command_prewarm(struct vmstack_process *proc, const char *cmd);
/* Let it exec: 0 once it has, else exec's errno. */
int vmstack_command_release(struct vmstack_command *c);

#endif
