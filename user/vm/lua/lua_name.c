// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "vm/lua/lua_name.h"

void vmstack_lua_name(struct vmstack_name_buf *out, const char *prefix,
		      const char *chunk, int line)
{
	snprintf(out->file, sizeof(out->file), "%s",
		 chunk[0] == '@' || chunk[0] == '=' ? chunk + 1 : "[string]");
	/* Chunk names are cut to 200 bytes before: the line always fits. */
	snprintf(out->function, sizeof(out->function), "%s%.200s:%d", prefix, out->file, line);
	out->line = out->start_line = line > 0 ? (uint32_t)line : 0;
}
