// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "symbols.h"
#include "unwind/upload.h"

/*
 * The name of a mapping's rows in the module: the same file (device,
 * inode, path) mapped at the same offset and length has the same rows in
 * every process. FNV-1a; never 0.
 */
static uint64_t rows_key(const struct vmstack_map *m)
{
	char buf[4200];
	uint64_t h = 0xcbf29ce484222325ULL;
	int n = snprintf(buf, sizeof(buf), "%" PRIu64 ":%" PRIu64 ":%s:%" PRIx64 ":%" PRIx64,
			 m->dev, m->inode, m->path, m->offset, m->end - m->start);

	for (int i = 0; i < n && i < (int)sizeof(buf); i++)
		h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

void vmstack_unwind_upload(struct vmstack_nl *nl, int fd, uint32_t pid,
			   const struct vmstack_map *m, struct vmstack_unwind_stats *st)
{
	const struct vmstack_cfi_table *cfi;
	struct vmstack_uw_row *rows;
	uint64_t lo, key = rows_key(m);
	char msg[256];
	size_t n;

	if (!m->symtab)
		return;
	/* Another process's copy, if the module has one: no rows sent. */
	if (!vmstack_nl_unwind_place(nl, fd, pid, key, m->start, m->end, &st->bytes,
				     msg, sizeof(msg))) {
		st->maps++;
		st->shared++;
		return;
	}
	/* The file's rows, built on first use: not for a copy placed above. */
	if (!(cfi = vmstack_symtab_cfi(m->symtab)) ||
	    vmstack_symtab_vaddr(m->symtab, m->offset, &lo))
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
