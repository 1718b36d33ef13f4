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
 * 7: VM names as their parts (function, file, lines), not as text.
 * 8: call-site names (Lua's functions named by their callers' calls).
 * 9: which VMs' frames are named across native frames (vm/runtime.h).
 */
#define RAW_MAGIC "VMSTACK-RAW 9\n"
/* A name's part longer than any a namer gives: a corrupt file. */
#define RAW_PART_MAX 65536

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

static int write_vm_name(void *arg, uint64_t ident, uint64_t pc,
			 const struct vmstack_name *n)
{
	FILE *f = arg;
	size_t lf = strlen(n->function), ll = strlen(n->file);

	return fprintf(f, "%" PRIx64 " %" PRIx64 " %u %u %u %zu %zu ", ident, pc, n->line,
		       n->start_line, n->flags, lf, ll) < 0 ||
	       fwrite(n->function, 1, lf, f) != lf || fwrite(n->file, 1, ll, f) != ll ||
	       fputc('\n', f) == EOF;
}

static int write_vm_site(void *arg, const struct vmstack_vm_site *s, const char *name)
{
	FILE *f = arg;
	size_t ln = strlen(name);

	return fprintf(f, "%" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %zu ", s->callee,
		       s->callee_pc, s->caller, s->caller_pc, ln) < 0 ||
	       fwrite(name, 1, ln, f) != ln || fputc('\n', f) == EOF;
}

/* "vmacross N" and a line per VM whose frames are named across native frames. */
static int write_vm_across(FILE *f, const struct vmstack_process *proc)
{
	const struct vmstack_vm_across *a;
	unsigned int vm, n = 0;

	for (vm = 0; vm < VMSTACK_VM_MAX; vm++)
		n += vmstack_process_vm_across(proc, vm) != NULL;
	if (fprintf(f, "vmacross %u\n", n) < 0)
		return -1;
	for (vm = 0; vm < VMSTACK_VM_MAX; vm++) {
		a = vmstack_process_vm_across(proc, vm);
		if (a && fprintf(f, "%u %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n",
				 vm, a->mask, a->bits, a->stop_lo, a->stop_hi) < 0)
			return -1;
	}
	return 0;
}

static int read_vm_across(FILE *f, struct vmstack_process *proc)
{
	struct vmstack_vm_across a;
	unsigned int vm, n, i;

	if (fscanf(f, "vmacross %u\n", &n) != 1 || n > VMSTACK_VM_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (fscanf(f, "%u %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 "\n", &vm, &a.mask,
			   &a.bits, &a.stop_lo, &a.stop_hi) != 5 || vm >= VMSTACK_VM_MAX)
			return -1;
		vmstack_process_set_vm_across(proc, vm, &a);
	}
	return 0;
}

int vmstack_raw_write(const char *path, const struct vmstack_raw_head *h,
		      struct vmstack_process *proc,
		      const struct vmstack_threads *threads,
		      const struct vmstack_raw_buf *b)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	err = fprintf(f, RAW_MAGIC "pid %d\ncomm %s\nfreq %u\nlost %" PRIu64
		      "\nduration %" PRIu64 "\nmaps %zu\n", h->pid, h->comm, h->freq,
		      h->lost, h->duration_ns, vmstack_process_nr_maps(proc)) < 0 ||
	      vmstack_process_write_maps(proc, f) ||
	      fprintf(f, "vmnames %zu\n", vmstack_process_vm_names(proc)->table.n) < 0 ||
	      vmstack_vm_names_each(vmstack_process_vm_names(proc), write_vm_name, f) ||
	      fprintf(f, "vmsites %zu\n", vmstack_process_vm_sites(proc)->table.n) < 0 ||
	      vmstack_vm_sites_each(vmstack_process_vm_sites(proc), write_vm_site, f) ||
	      write_vm_across(f, proc) ||
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

/* One VM name, as write_vm_name() wrote it, into @proc: 0, or -1. */
static int read_vm_name(FILE *f, struct vmstack_process *proc)
{
	uint64_t ident, pc;
	struct vmstack_name n = { 0 };
	size_t lf, ll;
	char *b;
	int ok;

	if (fscanf(f, "%" SCNx64 " %" SCNx64 " %u %u %u %zu %zu", &ident, &pc, &n.line,
		   &n.start_line, &n.flags, &lf, &ll) != 7 ||
	    lf > RAW_PART_MAX || ll > RAW_PART_MAX || fgetc(f) != ' ')
		return -1;
	b = xmalloc(lf + ll + 2);
	ok = fread(b, 1, lf + ll, f) == lf + ll && fgetc(f) == '\n';
	if (ok) {
		memmove(b + lf + 1, b + lf, ll);
		b[lf] = b[lf + 1 + ll] = 0;
		n.function = b;
		n.file = b + lf + 1;
		vmstack_process_add_vm_name(proc, ident, pc, &n);
	}
	free(b);
	return ok ? 0 : -1;
}

/* One call-site name, as write_vm_site() wrote it, into @proc: 0, or -1. */
static int read_vm_site(FILE *f, struct vmstack_process *proc)
{
	struct vmstack_vm_site s;
	size_t ln;
	char *b;
	int ok;

	if (fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %zu", &s.callee,
		   &s.callee_pc, &s.caller, &s.caller_pc, &ln) != 5 || ln > RAW_PART_MAX ||
	    fgetc(f) != ' ')
		return -1;
	b = xmalloc(ln + 1);
	ok = fread(b, 1, ln, f) == ln && fgetc(f) == '\n';
	if (ok) {
		b[ln] = 0;
		vmstack_process_add_vm_site(proc, &s, b);
	}
	free(b);
	return ok ? 0 : -1;
}

int vmstack_raw_open(const char *path, struct vmstack_raw *raw, char *err,
		     size_t len)
{
	char line[4200], *maps = NULL;
	size_t nmaps, nvm, nsites, nthreads, maps_len = 0, i;
	FILE *f, *mf;
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
	raw->proc = vmstack_process_new(raw->head.pid);
	for (i = 0; i < nvm && !read_vm_name(f, raw->proc); i++)
		;
	bad = i < nvm || fscanf(f, "vmsites %zu\n", &nsites) != 1;
	for (i = 0; !bad && i < nsites && !read_vm_site(f, raw->proc); i++)
		;
	vmstack_threads_init(&raw->threads);
	bad = bad || i < nsites || read_vm_across(f, raw->proc) ||
	      fscanf(f, "threads %zu\n", &nthreads) != 1;
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
		vmstack_process_add_maps(raw->proc, mf);
		fclose(mf);
	}
	free(maps);
	raw->f = f;
	return 0;
}

/* The window holds at least @need bytes from window_off, unless the file ends. */
static void window_fill(struct vmstack_raw *raw, size_t need)
{
	struct vmstack_raw_buf *w = &raw->window;
	size_t n;

	if (w->len - raw->window_off >= need)
		return;
	/* What is left to the front: records stay 8-byte aligned. */
	if (raw->window_off) {
		memmove(w->data, w->data + raw->window_off, w->len - raw->window_off);
		w->len -= raw->window_off;
		raw->window_off = 0;
	}
	if (need > w->cap) {
		w->cap = need > (1 << 20) ? need : 1 << 20;
		w->data = xrealloc(w->data, w->cap);
	}
	while (w->len < need && (n = fread(w->data + w->len, 1, w->cap - w->len, raw->f)))
		w->len += n;
}

int vmstack_raw_next(struct vmstack_raw *raw, const struct vmstack_rec_sample **rec,
		     char *err, size_t len)
{
	const struct vmstack_rec_sample *r;

	window_fill(raw, sizeof(*r));
	if (raw->window.len == raw->window_off)
		return 0;
	r = (const void *)(raw->window.data + raw->window_off);
	if (raw->window.len - raw->window_off < sizeof(*r) ||
	    r->hdr.type != VMSTACK_REC_SAMPLE ||
	    r->hdr.size != sizeof(*r) + ((size_t)r->nr_kernel + r->nr_user) * 8)
		return fail(err, len, "corrupt record in raw recording");
	window_fill(raw, r->hdr.size);
	/* The window may have moved. */
	r = (const void *)(raw->window.data + raw->window_off);
	if (r->hdr.size > raw->window.len - raw->window_off)
		return fail(err, len, "corrupt record in raw recording");
	raw->window_off += r->hdr.size;
	*rec = r;
	return 1;
}

int vmstack_raw_read(const char *path, struct vmstack_raw *raw, char *err,
		     size_t len)
{
	const struct vmstack_rec_sample *rec;
	struct stat stat;
	off_t here;
	int more;

	if (vmstack_raw_open(path, raw, err, len))
		return -1;
	/* Room for all at once, as the file's size says: no copies as it grows. */
	if (!fstat(fileno(raw->f), &stat) && (here = ftello(raw->f)) >= 0 &&
	    stat.st_size > here) {
		raw->records.cap = (size_t)(stat.st_size - here);
		raw->records.data = xmalloc(raw->records.cap);
	}
	while ((more = vmstack_raw_next(raw, &rec, err, len)) > 0)
		vmstack_raw_append(&raw->records, rec);
	if (more < 0) {
		vmstack_raw_free(raw);
		return -1;
	}
	return 0;
}

void vmstack_raw_free(struct vmstack_raw *raw)
{
	vmstack_process_free(raw->proc);
	vmstack_threads_free(&raw->threads);
	free(raw->records.data);
	if (raw->f)
		fclose(raw->f);
	free(raw->window.data);
	memset(raw, 0, sizeof(*raw));
}
