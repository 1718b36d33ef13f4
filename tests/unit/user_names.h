/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user address of a process named as the recorder names a native frame
 * (vmstack_process_resolve), and one stack of it named as folded text,
 * for the naming tests: test_symbols.c, test_debuginfo.c,
 * test_demangle.c, test_py_stubs.c.
 */
#ifndef VMSTACK_UNIT_USER_NAMES_H
#define VMSTACK_UNIT_USER_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "process.h"

/* The name of @addr in @s (@ret: a return address), written to @buf, cut to @len. */
const char *user_name(struct vmstack_process *s, uint64_t addr, int ret, char *buf, size_t len);

/* The frames of @addr with lines in @names, as --lines names them: their count. */
size_t user_lines(struct vmstack_process *s, uint64_t addr, struct vmstack_name *names);

/*
 * The folded text of one stack of @s's process, "app", its @n (at most 8)
 * user frames leaf first in @ips, named with or without demangling; to be
 * freed.
 */
char *user_folded(struct vmstack_process *s, const uint64_t *ips, unsigned int n,
		  int no_demangle);

#endif
