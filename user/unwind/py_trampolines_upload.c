// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's perf trampolines' arenas found in a process and their rules
 * given to the module (py_trampolines.h): the recorder's part.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/py_trampolines.h"
#include "util.h"

/*
 * The stride of the copies of the stub in [start, end) of @mem, if the
 * arena starts with two and its last whole one is one too; else 0.
 */
static size_t arena_stride(const struct vmstack_py_tramp *t, int mem, uint64_t start,
			   uint64_t end)
{
	unsigned char buf[3 * PY_TRAMP_MAX_BYTES];
	size_t stride, got = end - start < sizeof(buf) ? end - start : sizeof(buf);
	uint64_t last;

	if (pread(mem, buf, got, (off_t)start) != (ssize_t)got ||
	    !(stride = vmstack_py_tramp_stride(t, buf, got)))
		return 0;
	last = start + ((end - start - t->size) / stride) * stride;
	return pread(mem, buf, t->size, (off_t)last) == (ssize_t)t->size &&
	       !memcmp(buf, t->code, t->size) ? stride : 0;
}

static int known_arena(const struct vmstack_py_tramp *t, uint64_t start)
{
	size_t i;

	for (i = 0; i < t->narenas; i++)
		if (t->arenas[i] == start)
			return 1;
	return 0;
}

/* Rows of one arena: the same for every arena of a size, so shared by key. */
static void upload_arena(struct vmstack_py_tramp *t, struct vmstack_nl *nl, int fd,
			 uint32_t target_pid, uint64_t start, uint64_t end, size_t stride,
			 struct vmstack_unwind_stats *st)
{
	uint64_t shape[2] = { end - start, stride };
	struct vmstack_uw_row *rows;
	char msg[256];
	uint64_t key;
	size_t n;

	/* The stub, the arena's size and the stride; never 0 (no key, to the module). */
	key = hash_bytes(shape, sizeof(shape), hash_bytes(t->code, t->size, 0));
	key += !key;
	if (!vmstack_nl_unwind_place(nl, fd, target_pid, key, start, end, &st->bytes,
				     msg, sizeof(msg))) {
		st->maps++;
		st->shared++;
		return;
	}
	n = vmstack_py_tramp_arena_rows(t, end - start, stride, &rows);
	if (vmstack_nl_unwind_add(nl, fd, target_pid, key, start, end, rows, n, &st->bytes,
				  msg, sizeof(msg))) {
		if (!st->refused++)
			fprintf(stderr, "vmstack-record: unwind rules for CPython's perf trampolines refused: %s\n",
				msg);
	} else {
		st->maps++;
		st->rows += n;
	}
	free(rows);
}

int vmstack_py_tramp_upload(struct vmstack_py_tramp *t, int pid, struct vmstack_nl *nl, int fd,
			    uint32_t target_pid, struct vmstack_unwind_stats *st)
{
	char path[64], line[512], perms[8];
	unsigned long long start, end, inode;
	int mem, added = 0;
	size_t stride;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	while (f && mem >= 0 && fgets(line, sizeof(line), f)) {
		/* Anonymous executable memory: start-end perms offset dev inode (no path). */
		if (sscanf(line, "%llx-%llx %7s %*s %*s %llu", &start, &end, perms, &inode) != 4 ||
		    perms[2] != 'x' || inode || strchr(line, '/') || strchr(line, '[') ||
		    known_arena(t, start) || t->narenas == PY_TRAMP_MAX_ARENAS ||
		    !(stride = arena_stride(t, mem, start, end)))
			continue;
		t->arenas[t->narenas++] = start;
		upload_arena(t, nl, fd, target_pid, start, end, stride, st);
		added++;
	}
	if (mem >= 0)
		close(mem);
	if (f)
		fclose(f);
	return added;
}
