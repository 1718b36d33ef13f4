// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "user_names.h"

const char *user_name(struct vmstack_process *s, uint64_t addr, int ret, char *buf, size_t len)
{
	struct vmstack_where w;

	vmstack_process_resolve(s, addr, ret, &w, buf, len);
	if (w.name != buf)
		snprintf(buf, len, "%s", w.name);
	return buf;
}

size_t user_lines(struct vmstack_process *s, uint64_t addr, struct vmstack_name *names)
{
	/* The function's name, when resolving writes it: the names point into it. */
	static char buf[512];
	struct vmstack_where w;

	vmstack_process_resolve(s, addr, 0, &w, buf, sizeof(buf));
	return vmstack_process_lines(s, &w, names, VMSTACK_MAX_INLINE);
}
