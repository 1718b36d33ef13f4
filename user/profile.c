// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process.h"
#include "profile.h"
#include "stacks.h"
#include "util.h"
#include "vm/cpython/perf_stub.h"

#define NAME_LEN 256
/*
 * Room for a native name made up ("FILE+0xVADDR", "PATH+0xOFFSET") with
 * --lines: 512 bytes, as the names kept with a file's lines have always
 * had (256 without), so that the same recording gives the same names.
 */
#define LINES_NAME_LEN 512

void vmstack_profile_init(struct vmstack_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->nslots = 256;
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	p->nframe_slots = 256;
	p->frame_slots = xcalloc(p->nframe_slots, sizeof(*p->frame_slots));
}

void vmstack_profile_free(struct vmstack_profile *p)
{
	size_t i;

	for (i = 0; i < p->nframes; i++) {
		struct vmstack_name n = vmstack_pframe_name(&p->frames[i]);

		vmstack_name_free(&n);
	}
	for (i = 0; i < p->nmaps; i++) {
		free(p->maps[i].path);
		free(p->maps[i].build_id);
	}
	free(p->maps);
	for (i = 0; i < p->nprocs; i++) {
		free(p->procs[i].comm);
		free(p->procs[i].cgroup);
	}
	free(p->procs);
	free(p->proc_slots);
	for (i = 0; i < p->nslots; i++)
		free(p->slots[i]);
	free(p->frames);
	free(p->frame_slots);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

struct vmstack_name vmstack_pframe_name(const struct vmstack_pframe *f)
{
	return (struct vmstack_name){
		.kind = f->kind, .function = f->function, .file = f->file,
		.line = f->line, .start_line = f->start_line, .flags = f->flags,
	};
}

size_t vmstack_pframe_text(const struct vmstack_pframe *f, char *buf, size_t len)
{
	struct vmstack_name n = vmstack_pframe_name(f);

	return vmstack_name_text(&n, buf, len);
}

static uint64_t frame_hash(const struct vmstack_name *n)
{
	/* The numbers in the seed: most frames have neither file nor lines. */
	uint64_t h = hash_bytes(n->function, strlen(n->function),
				(uint64_t)n->kind + 1 + ((uint64_t)n->line << 8) +
				((uint64_t)n->start_line << 36) + ((uint64_t)n->flags << 4));

	return *n->file ? hash_bytes(n->file, strlen(n->file), h) : h;
}

static int same_name(const struct vmstack_pframe *f, const struct vmstack_name *n)
{
	return f->kind == n->kind && f->line == n->line && f->start_line == n->start_line &&
	       f->flags == n->flags && !strcmp(f->function, n->function) &&
	       !strcmp(f->file, n->file);
}

static size_t frame_slot(const struct vmstack_profile *p, const struct vmstack_name *n)
{
	size_t j = frame_hash(n) & (p->nframe_slots - 1);

	for (; p->frame_slots[j]; j = (j + 1) & (p->nframe_slots - 1))
		if (same_name(&p->frames[p->frame_slots[j] - 1], n))
			break;
	return j;
}

uint32_t vmstack_profile_intern(struct vmstack_profile *p, const struct vmstack_name *n)
{
	struct vmstack_name d;
	size_t j, i;

	if (2 * (p->nframes + 1) > p->nframe_slots) {
		free(p->frame_slots);
		p->nframe_slots *= 2;
		p->frame_slots = xcalloc(p->nframe_slots, sizeof(*p->frame_slots));
		for (i = 0; i < p->nframes; i++) {
			struct vmstack_name old = vmstack_pframe_name(&p->frames[i]);

			p->frame_slots[frame_slot(p, &old)] = i + 1;
		}
	}
	j = frame_slot(p, n);
	if (p->frame_slots[j])
		return (uint32_t)(p->frame_slots[j] - 1);
	if (p->nframes == p->capframes) {
		p->capframes = p->capframes ? 2 * p->capframes : 256;
		p->frames = xrealloc(p->frames, p->capframes * sizeof(*p->frames));
	}
	d = vmstack_name_dup(n);
	p->frames[p->nframes] = (struct vmstack_pframe){
		.kind = d.kind, .function = d.function, .file = d.file, .line = d.line,
		.start_line = d.start_line, .flags = d.flags,
	};
	p->frame_slots[j] = ++p->nframes;
	return (uint32_t)(p->nframes - 1);
}

uint32_t vmstack_profile_frame(struct vmstack_profile *p, const char *name,
			       enum vmstack_frame_kind kind)
{
	return vmstack_profile_intern(p, &(struct vmstack_name){
		.kind = kind, .function = name, .file = "" });
}

static uint64_t stack_hash(const uint32_t *ids, uint32_t n, uint32_t tid)
{
	return hash_bytes(ids, n * sizeof(*ids), ((uint64_t)tid << 32) | n);
}

static size_t stack_slot(const struct vmstack_profile *p, const uint32_t *ids,
			 uint32_t n, uint32_t tid)
{
	size_t j = stack_hash(ids, n, tid) & (p->nslots - 1);
	const struct vmstack_pstack *s;

	for (; (s = p->slots[j]); j = (j + 1) & (p->nslots - 1))
		if (s->n == n && s->tid == tid &&
		    !memcmp(s->frames, ids, n * sizeof(*ids)))
			break;
	return j;
}

void vmstack_profile_add(struct vmstack_profile *p, const uint32_t *ids,
			 uint32_t n, uint32_t pid, uint32_t tid, uint64_t count)
{
	struct vmstack_pstack *s;
	size_t i, j;

	p->samples += count;
	if (2 * (p->nstacks + 1) > p->nslots) {
		struct vmstack_pstack **old = p->slots;
		size_t nold = p->nslots;

		p->nslots *= 2;
		p->slots = xcalloc(p->nslots, sizeof(*p->slots));
		for (i = 0; i < nold; i++)
			if (old[i])
				p->slots[stack_slot(p, old[i]->frames, old[i]->n,
						    old[i]->tid)] = old[i];
		free(old);
	}
	j = stack_slot(p, ids, n, tid);
	if (p->slots[j]) {
		p->slots[j]->count += count;
		return;
	}
	s = xmalloc(sizeof(*s) + n * sizeof(*ids));
	s->count = count;
	s->pid = pid;
	s->tid = tid;
	s->n = n;
	memcpy(s->frames, ids, n * sizeof(*ids));
	p->slots[j] = s;
	p->nstacks++;
}

/* The profile's mapping for @m (added if new): index + 1. */
static uint32_t profile_map(struct vmstack_profile *p, const struct vmstack_map *m,
			    const char *build_id)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].start == m->start && !strcmp(p->maps[i].path, m->path))
			return (uint32_t)i + 1;
	p->maps = xrealloc(p->maps, (p->nmaps + 1) * sizeof(*p->maps));
	p->maps[p->nmaps] = (struct vmstack_pmap){
		.path = xstrdup(m->path), .build_id = xstrdup(build_id),
		.start = m->start, .limit = m->end, .offset = m->offset,
	};
	return (uint32_t)++p->nmaps;
}

/*
 * Frame @f of process @proc: its ids, leaf first, in @leaf (a native
 * frame with lines is its function and the calls inlined there, the
 * innermost first); returns how many. A new native frame gets its place
 * (mapping, address) from the same resolve that names it. @caller: a
 * VM frame's caller (vmstack_frames_caller()), or NULL. @callee_kind:
 * the kind of the frame before @f (leaf first), ROOT for the leaf. A
 * CPython perf stub whose callee is a script frame has none (0): the
 * Python frame merged above it is the same call (perf_stub.h).
 */
static uint32_t frame_ids(struct vmstack_profile *p, struct vmstack_process *proc,
			  const struct vmstack_frame *f, const struct vmstack_frame *caller,
			  enum vmstack_frame_kind callee_kind, int lines, uint32_t *leaf)
{
	struct vmstack_name names[VMSTACK_MAX_INLINE];
	char buf[LINES_NAME_LEN];
	struct vmstack_where w;
	uint32_t k, nn = 1;
	size_t before;

	if (f->kind != VMSTACK_FRAME_NATIVE) {
		vmstack_process_name(proc, f, caller, &names[0], buf, NAME_LEN);
		leaf[0] = vmstack_profile_intern(p, &names[0]);
		return 1;
	}
	vmstack_process_resolve(proc, f->value, f->ret, &w, buf, lines ? LINES_NAME_LEN : NAME_LEN);
	if (w.perf_map && callee_kind == VMSTACK_FRAME_SCRIPT && cpython_perf_stub_name(w.name))
		return 0;
	names[0] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE, .function = w.name,
					  .file = "" };
	if (lines)
		nn = (uint32_t)vmstack_process_lines(proc, &w, names, VMSTACK_MAX_INLINE);
	for (k = 0; k < nn; k++) {
		before = p->nframes;
		leaf[k] = vmstack_profile_intern(p, &names[nn - 1 - k]);
		/* Formats that show addresses (pprof) place it in its file's mapping. */
		if (p->nframes > before && w.map && w.map->path[0] == '/') {
			p->frames[leaf[k]].map = profile_map(p, w.map,
				w.file ? vmstack_file_build_id(w.file) : "");
			p->frames[leaf[k]].addr = w.addr;
		}
	}
	return nn;
}

/* @pid's slot in the table of processes: its entry or the free one. */
static size_t proc_slot(const struct vmstack_profile *p, uint32_t pid)
{
	size_t j = (pid * 0x9e3779b1u) & (p->nproc_slots - 1);

	while (p->proc_slots[j] && p->procs[p->proc_slots[j] - 1].pid != pid)
		j = (j + 1) & (p->nproc_slots - 1);
	return j;
}

const struct vmstack_pproc *vmstack_profile_proc(const struct vmstack_profile *p, uint32_t pid)
{
	size_t j;

	if (!p->nproc_slots)
		return NULL;
	j = proc_slot(p, pid);
	return p->proc_slots[j] ? &p->procs[p->proc_slots[j] - 1] : NULL;
}

/*
 * Process @pid is named @comm, in @cgroup (the first given stays). Found by
 * hash: a whole-machine profile labels thousands of stacks of hundreds of
 * processes.
 */
static void profile_proc(struct vmstack_profile *p, uint32_t pid, const char *comm,
			 const char *cgroup)
{
	size_t i;

	if (!pid || vmstack_profile_proc(p, pid))
		return;
	if (2 * (p->nprocs + 1) > p->nproc_slots) {
		free(p->proc_slots);
		p->nproc_slots = p->nproc_slots ? 2 * p->nproc_slots : 64;
		p->proc_slots = xcalloc(p->nproc_slots, sizeof(*p->proc_slots));
		for (i = 0; i < p->nprocs; i++)
			p->proc_slots[proc_slot(p, p->procs[i].pid)] = i + 1;
	}
	p->procs = xrealloc(p->procs, (p->nprocs + 1) * sizeof(*p->procs));
	p->procs[p->nprocs++] = (struct vmstack_pproc){ .pid = pid, .comm = xstrdup(comm),
		.cgroup = xstrdup(cgroup ? cgroup : "") };
	p->proc_slots[proc_slot(p, pid)] = p->nprocs;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct vmstack_stack *x = *(const struct vmstack_stack *const *)a;
	const struct vmstack_stack *y = *(const struct vmstack_stack *const *)b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Stack @s of @src's process, named, into @p; @leaf and @ids are room for it. */
static void name_stack(struct vmstack_profile *p, const struct vmstack_stack *s,
		       const struct vmstack_name_source *src,
		       const struct vmstack_name_opts *o, uint32_t *leaf, uint32_t *ids)
{
	struct vmstack_frame_iter it;
	struct vmstack_frame f, caller;
	enum vmstack_frame_kind callee_kind = VMSTACK_FRAME_ROOT;
	uint32_t n = 0, nl = 0, nk = 0, k;
	char root[NAME_LEN];

	k = (uint32_t)snprintf(root, sizeof(root), "%s", src->comm);
	if (o->root_pid && k < sizeof(root))
		k += (uint32_t)snprintf(root + k, sizeof(root) - k, " (%u)", s->pid);
	if (o->per_thread && k < sizeof(root))
		snprintf(root + k, sizeof(root) - k, "/%u", s->tid);
	ids[n++] = vmstack_profile_frame(p, root, VMSTACK_FRAME_ROOT);
	vmstack_stack_frames(s, &it);
	while (vmstack_frames_next(&it, &f)) {
		nk += f.kind == VMSTACK_FRAME_KERNEL;
		nl += frame_ids(p, src->proc, &f,
				vmstack_frames_caller(&it, &f, &caller,
						      vmstack_process_vm_across(src->proc, f.vm)),
				callee_kind, o->lines, leaf + nl);
		callee_kind = f.kind;
	}
	/* Root first: user frames outermost first, then kernel frames. */
	for (k = nl; k > nk; k--)
		ids[n++] = leaf[k - 1];
	for (k = nk; k > 0; k--)
		ids[n++] = leaf[k - 1];
	vmstack_profile_add(p, ids, n, s->pid, s->tid, s->count);
}

void vmstack_profile_name(struct vmstack_profile *p, const struct vmstack_stacks *st,
			  const struct vmstack_name_opts *o)
{
	/* Each stack's ids, leaf first as its frames are. */
	size_t cap = 2 * VMSTACK_MAX_DEPTH * (o->lines ? VMSTACK_MAX_INLINE : 1);
	uint32_t *leaf = xmalloc(cap * sizeof(*leaf));
	uint32_t *ids = xmalloc((cap + 1) * sizeof(*ids));
	const struct vmstack_stack **v = xmalloc((st->n ? st->n : 1) * sizeof(*v));
	struct vmstack_name_source src;
	size_t i, n = 0;
	int have = 0;

	/* By process: each process's source is asked for once. */
	/* Not one of no weight: an off-CPU stack whose wait never ended. */
	for (i = 0; i < st->nslots; i++)
		if (st->slots[i] && st->slots[i]->count)
			v[n++] = st->slots[i];
	qsort(v, n, sizeof(*v), cmp_pid);
	for (i = 0; i < n; i++) {
		if (!i || v[i]->pid != v[i - 1]->pid) {
			have = !o->source(o->arg, v[i]->pid, &src);
			if (have) {
				vmstack_process_demangle(src.proc, !o->no_demangle);
				profile_proc(p, v[i]->pid, src.comm, src.cgroup);
			}
		}
		if (have)
			name_stack(p, v[i], &src, o, leaf, ids);
	}
	if (o->per_thread)
		p->threads = o->threads;
	free(v);
	free(leaf);
	free(ids);
}
