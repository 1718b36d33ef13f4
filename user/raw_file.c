// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "raw_file.h"
#include "util.h"

/*
 * 3: VM words of ABI 2 (the descriptor's index, 57-bit values).
 * 4: VM names by word and PC (CPython's name the line).
 * 5: the rate and the lost samples (pprof's period and comments).
 * 6: the duration (flame graphs' totals), thread names (pprof's labels).
 */
#define RAW_MAGIC "VMSTACK-RAW 6\n"

void vmstack_raw_append(struct vmstack_raw_buf *b,
			const struct vmstack_rec_sample *rec)
{
	if (b->len + rec->hdr.size > b->cap) {
		b->cap = 2 * (b->cap + rec->hdr.size) + 65536;
		b->data = xrealloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, rec, rec->hdr.size);
	b->len += rec->hdr.size;
}

int vmstack_raw_write(const char *path, const struct vmstack_raw_head *h,
		      struct vmstack_symbolizer *sym,
		      const struct vmstack_threads *threads,
		      const struct vmstack_raw_buf *b)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	err = fprintf(f, RAW_MAGIC "pid %d\ncomm %s\nfreq %u\nlost %" PRIu64
		      "\nduration %" PRIu64 "\nmaps %zu\n", h->pid, h->comm, h->freq,
		      h->lost, h->duration_ns, vmstack_symbolizer_nr_maps(sym)) < 0 ||
	      vmstack_symbolizer_write_maps(sym, f) ||
	      fprintf(f, "vmnames %zu\n", vmstack_symbolizer_nr_vm_names(sym)) < 0 ||
	      vmstack_symbolizer_write_vm_names(sym, f) ||
	      fprintf(f, "threads %zu\n", threads->n) < 0 ||
	      vmstack_threads_write(threads, f) ||
	      fputs("records\n", f) < 0 ||
	      (b->len && fwrite(b->data, b->len, 1, f) != 1);
	if (fclose(f))
		err = 1;
	return err ? -1 : 0;
}

static int fail(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s", what);
	return -1;
}

int vmstack_raw_read(const char *path, struct vmstack_raw *raw, char *err,
		     size_t len)
{
	char line[4200], *maps = NULL;
	size_t nmaps, nvm, nthreads, maps_len = 0, i, off;
	FILE *f, *mf;
	struct stat stat;
	off_t here;
	size_t n;
	int bad;

	memset(raw, 0, sizeof(*raw));
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fgets(line, sizeof(line), f) && !strncmp(line, "VMSTACK-RAW ", 12) &&
	    strcmp(line, RAW_MAGIC)) {
		fclose(f);
		snprintf(err, len, "a raw recording of another vmstack version (%.*s, this one reads %.*s): record it again",
			 (int)strcspn(line, "\n"), line, (int)strlen(RAW_MAGIC) - 1, RAW_MAGIC);
		return -1;
	}
	if (strcmp(line, RAW_MAGIC) ||
	    fscanf(f, "pid %d\n", &raw->head.pid) != 1 ||
	    !fgets(line, sizeof(line), f) || strncmp(line, "comm ", 5) ||
	    fscanf(f, "freq %u\nlost %" SCNu64 "\nduration %" SCNu64 "\n",
		   &raw->head.freq, &raw->head.lost, &raw->head.duration_ns) != 3 ||
	    fscanf(f, "maps %zu\n", &nmaps) != 1) {
		fclose(f);
		return fail(err, len, "not a vmstack raw recording");
	}
	line[strcspn(line, "\n")] = 0;
	snprintf(raw->head.comm, sizeof(raw->head.comm), "%.63s", line + 5);
	mf = open_memstream(&maps, &maps_len);
	for (i = 0; i < nmaps && fgets(line, sizeof(line), f); i++)
		fputs(line, mf);
	fclose(mf);
	if (i < nmaps || fscanf(f, "vmnames %zu\n", &nvm) != 1) {
		free(maps);
		fclose(f);
		return fail(err, len, "truncated raw recording (mappings)");
	}
	raw->sym = vmstack_symbolizer_new(raw->head.pid);
	for (i = 0; i < nvm && fgets(line, sizeof(line), f); i++) {
		char *pc_at, *name;
		unsigned long long ident = strtoull(line, &pc_at, 16);
		unsigned long long pc = strtoull(pc_at, &name, 16);

		name[strcspn(name, "\n")] = 0;
		vmstack_symbolizer_add_vm_name(raw->sym, ident, pc, name + (*name == ' '));
	}
	vmstack_threads_init(&raw->threads);
	bad = i < nvm || fscanf(f, "threads %zu\n", &nthreads) != 1;
	for (i = 0; !bad && i < nthreads && fgets(line, sizeof(line), f); i++) {
		char *name;
		unsigned long tid = strtoul(line, &name, 10);

		name[strcspn(name, "\n")] = 0;
		vmstack_threads_set(&raw->threads, (uint32_t)tid, name + (*name == ' '));
	}
	if (bad || i < nthreads || !fgets(line, sizeof(line), f) ||
	    strcmp(line, "records\n")) {
		free(maps);
		fclose(f);
		vmstack_raw_free(raw);
		return fail(err, len, "truncated raw recording (VM names, threads)");
	}
	mf = fmemopen(maps, maps_len ? maps_len : 1, "r");
	if (mf) {
		vmstack_symbolizer_add_maps(raw->sym, mf);
		fclose(mf);
	}
	free(maps);
	/*
	 * The records: read all, then check each one's size before use. Into
	 * a buffer of the size the file says, in one read: growing one by
	 * doubling copied each byte twice more, a third of the cost of a
	 * sample in vmstack-report. A file that grows meanwhile still grows
	 * the buffer.
	 */
	if (!fstat(fileno(f), &stat) && (here = ftello(f)) >= 0 && stat.st_size > here) {
		raw->records.cap = (size_t)(stat.st_size - here);
		raw->records.data = xmalloc(raw->records.cap);
	}
	for (;;) {
		if (raw->records.len == raw->records.cap) {
			raw->records.cap = 2 * raw->records.cap + 65536;
			raw->records.data = xrealloc(raw->records.data, raw->records.cap);
		}
		n = fread(raw->records.data + raw->records.len, 1,
			  raw->records.cap - raw->records.len, f);
		if (!n)
			break;
		raw->records.len += n;
	}
	fclose(f);
	for (off = 0; off < raw->records.len;) {
		const struct vmstack_rec_sample *rec =
			(const void *)(raw->records.data + off);

		if (raw->records.len - off < sizeof(*rec) ||
		    rec->hdr.type != VMSTACK_REC_SAMPLE ||
		    rec->hdr.size != sizeof(*rec) +
		    ((size_t)rec->nr_kernel + rec->nr_user) * 8 ||
		    rec->hdr.size > raw->records.len - off) {
			vmstack_raw_free(raw);
			return fail(err, len, "corrupt record in raw recording");
		}
		off += rec->hdr.size;
	}
	return 0;
}

void vmstack_raw_free(struct vmstack_raw *raw)
{
	vmstack_symbolizer_free(raw->sym);
	vmstack_threads_free(&raw->threads);
	free(raw->records.data);
	memset(raw, 0, sizeof(*raw));
}
