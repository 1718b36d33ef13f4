/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command the recorder runs: forked and held before exec on a pipe, so
 * sampling covers it from its first instruction, with its files' symbols
 * and unwind rules read before it maps them; then held again at its
 * entry point (entry_hold.h) until its mappings' rules are in the module.
 */
#ifndef VMSTACK_COMMAND_H
#define VMSTACK_COMMAND_H

#include <sys/types.h>

#include "entry_hold.h"

struct vmstack_process;

struct vmstack_command {
	pid_t pid;
	int go_fd;
	int err_fd;
	struct vmstack_entry_hold hold;
};

/*
 * Fork @argv held before exec; @hold: to be held at its entry point too,
 * where that can be done. 0, or -1 (errno).
 */
int vmstack_command_start(char **argv, struct vmstack_command *c, int hold);
/*
 * Read the symbols and unwind rules of the files @argv[0] will map: its
 * executable, the C library and loader, the libraries it names.
 */
void vmstack_command_prewarm(struct vmstack_process *proc, const char *cmd);
/*
 * Let it exec: 0 once it has (and, if it could be, it is stopped at its
 * entry point), else exec's errno.
 */
int vmstack_command_release(struct vmstack_command *c);
/* Its mappings described: it runs on from its entry point. */
void vmstack_command_go(struct vmstack_command *c);

#endif
