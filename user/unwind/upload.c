// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "file.h"
#include "unwind/upload.h"

void vmstack_unwind_upload(struct vmstack_nl *nl, int fd, uint32_t pid,
			   const struct vmstack_map *m, struct vmstack_unwind_stats *st)
{
	const struct vmstack_cfi_table *cfi;
	struct vmstack_uw_row *rows;
	uint64_t lo, key;
	char msg[256];
	size_t n;

	if (!m->file)
		return;
	/* The same file mapped alike has the same rows in every process. */
	key = vmstack_file_rows_key(m->file, m->offset, m->end - m->start);
	/* Another process's copy, if the module has one: no rows sent. */
	if (!vmstack_nl_unwind_place(nl, fd, pid, key, m->start, m->end, &st->bytes,
				     msg, sizeof(msg))) {
		st->maps++;
		st->shared++;
		return;
	}
	/* The file's rows, built on first use: not for a copy placed above. */
	if (!(cfi = vmstack_file_cfi(m->file)) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return;
	n = vmstack_cfi_slice(cfi, lo, lo + (m->end - m->start), &rows);
	if (n && vmstack_nl_unwind_add(nl, fd, pid, key, m->start, m->end, rows, n,
				       &st->bytes, msg, sizeof(msg))) {
		/* The recorder is the only caller: its name, as its own messages. */
		if (!st->refused++)
			fprintf(stderr, "vmstack-record: unwind rules for %s refused: %s\n",
				m->path, msg);
	} else if (n) {
		st->maps++;
		st->rows += n;
	}
	free(rows);
}
