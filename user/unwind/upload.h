/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mapping's unwind rows given to the module: the recorder's one call
 * per new executable mapping. The rows are the file's (built once, by its
 * file object, user/file.h), sliced to the mapping, and named by a key
 * (the file's) so that the module shares one copy among the processes
 * that map it alike.
 */
#ifndef VMSTACK_UNWIND_UPLOAD_H
#define VMSTACK_UNWIND_UPLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "maps.h"
#include "vmstack_nl.h"

/* What a recording's uploads gave the module, for --stats. */
struct vmstack_unwind_stats {
	uint64_t bytes;		/* module memory for unwind rules */
	size_t maps;		/* mappings with rules */
	size_t shared;		/* of them, rows another process uploaded */
	size_t rows;		/* rows sent */
	size_t refused;		/* uploads the module refused (the first is said) */
};

/*
 * The rules of @m, a new executable mapping of the target the module knows
 * as @pid (0: the first), to session @fd: placed from another process's
 * copy if the module has one, else sliced from the file's rows and sent.
 * A file without CFI sends nothing: the module walks frame pointers there.
 */
void vmstack_unwind_upload(struct vmstack_nl *nl, int fd, uint32_t pid,
			   const struct vmstack_map *m, struct vmstack_unwind_stats *st);

#endif
