// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/vmstack.h>

#include "process.h"
#include "symtab.h"
#include "util.h"

struct vmstack_process {
	int pid;
	struct vmstack_maps maps;	/* each map holds a reference to its file */
	struct vmstack_file **prewarmed;	/* held until the process maps them */
	size_t nprewarmed;
	struct vmstack_symtab perf_map;
	vmstack_new_map_fn on_new_map;
	void *on_new_map_arg;
	struct vmstack_vm_namer vm_namer[VMSTACK_VM_MAX];
	struct vmstack_vm_names vm_names;
	struct vmstack_vm_sites vm_sites;
	bool mangled;		/* --no-demangle */
};

struct vmstack_process *vmstack_process_new(int pid)
{
	struct vmstack_process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	return p;
}

void vmstack_process_free(struct vmstack_process *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->maps.n; i++)
		vmstack_file_put(p->maps.v[i].file);
	for (i = 0; i < p->nprewarmed; i++)
		vmstack_file_put(p->prewarmed[i]);
	free(p->prewarmed);
	vmstack_maps_free(&p->maps);
	vmstack_symtab_free(&p->perf_map);
	vmstack_vm_names_free(&p->vm_names);
	vmstack_vm_sites_free(&p->vm_sites);
	free(p);
}

void vmstack_process_demangle(struct vmstack_process *p, bool on)
{
	p->mangled = !on;
}

void vmstack_process_on_new_map(struct vmstack_process *p, vmstack_new_map_fn fn,
				void *arg)
{
	p->on_new_map = fn;
	p->on_new_map_arg = arg;
}

int vmstack_process_add_maps(struct vmstack_process *p, FILE *f)
{
	size_t i, first = p->maps.n;
	int added, pass;

	added = (int)vmstack_maps_update(&p->maps, f);
	/*
	 * Files open already (prewarmed before exec, or mapped by another
	 * process) go first: when a loader has just mapped several
	 * libraries, the C library's rules must not wait while others are
	 * read (under TCG that took 150 ms, and every stack stopped in libc
	 * meanwhile).
	 */
	for (pass = 0; pass < 2; pass++)
		for (i = first; i < p->maps.n; i++) {
			struct vmstack_map *m = &p->maps.v[i];

			if (m->file)
				continue;
			if (m->perms[2] == 'x' && m->path[0] == '/')
				m->file = pass ? vmstack_file_get(m->dev, m->inode, m->path, p->pid) :
					  vmstack_file_find(m->dev, m->inode, m->path);
			else if (pass && !strcmp(m->path, "[vdso]"))
				m->file = vmstack_file_vdso();
			if (m->file && p->on_new_map)
				p->on_new_map(p->on_new_map_arg, m);
		}
	return added;
}

int vmstack_process_refresh(struct vmstack_process *p)
{
	char path[64];
	FILE *f;
	int added;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	added = vmstack_process_add_maps(p, f);
	fclose(f);
	return added;
}

int vmstack_process_knows(const struct vmstack_process *p, uint64_t addr)
{
	return vmstack_is_vmw(addr) || vmstack_maps_find(&p->maps, addr) != NULL;
}

size_t vmstack_process_nr_maps(const struct vmstack_process *p)
{
	return p->maps.n;
}

int vmstack_process_write_maps(const struct vmstack_process *p, FILE *f)
{
	size_t i;

	for (i = 0; i < p->maps.n; i++) {
		const struct vmstack_map *m = &p->maps.v[i];

		if (fprintf(f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64
			    " 00:00 %" PRIu64 " %s\n", m->start, m->end, m->perms,
			    m->offset, m->inode, m->path) < 0)
			return -1;
	}
	return 0;
}

void vmstack_process_prewarm(struct vmstack_process *p, const char *path)
{
	struct vmstack_file *f;
	char real[PATH_MAX];
	struct stat st;

	/* The maps name files by their canonical path. */
	if (!realpath(path, real) || stat(real, &st))
		return;
	f = vmstack_file_get(st.st_dev, st.st_ino, real, p->pid);
	vmstack_file_cfi(f);
	p->prewarmed = xrealloc(p->prewarmed, (p->nprewarmed + 1) * sizeof(*p->prewarmed));
	p->prewarmed[p->nprewarmed++] = f;
}

void vmstack_process_load_perf_map(struct vmstack_process *p)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", p->pid);
	vmstack_symtab_free(&p->perf_map);
	vmstack_symtab_load_perf_map(&p->perf_map, path);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

void vmstack_process_resolve(struct vmstack_process *p, uint64_t addr, int ret,
			     struct vmstack_where *w, char *buf, size_t len)
{
	uint64_t pc = ret ? addr - 1 : addr, off;
	const struct vmstack_map *m = vmstack_maps_find(&p->maps, pc);
	const struct vmstack_sym *sym;

	*w = (struct vmstack_where){ .map = m, .addr = pc, .name = buf };
	if (m) {
		w->file = m->file;
		w->offset = pc - m->start + m->offset;
	}
	if (w->file) {
		w->linked = !vmstack_file_vaddr(w->file, w->offset, &w->vaddr);
		sym = w->linked ? vmstack_file_symbol(w->file, w->vaddr) : NULL;
		if (!sym) {
			/* Known file, unknown function: an address addr2line takes. */
			snprintf(buf, len, "%s+0x%" PRIx64, base_name(m->path),
				 w->linked ? w->vaddr : w->offset);
			return;
		}
		if (!p->mangled)
			w->name = vmstack_file_shown_name(w->file, sym);
		else if (!sym->name[strcspn(sym->name, "@")])
			w->name = sym->name;
		else
			snprintf(buf, len, "%.*s", (int)strcspn(sym->name, "@"), sym->name);
		/* The entry, when it lies in the same mapping (it does but in odd files). */
		if (!vmstack_file_offset(w->file, sym->addr, &off) && off >= m->offset &&
		    off - m->offset < m->end - m->start)
			w->addr = m->start + (off - m->offset);
		return;
	}
	sym = p->perf_map.loaded ? vmstack_symtab_find(&p->perf_map, pc) : NULL;
	if (sym && (!m || m->path[0] != '/')) {
		w->name = sym->name;
		w->perf_map = true;
	} else if (m && m->path[0])
		snprintf(buf, len, "%s+0x%" PRIx64, m->path, w->offset);
	else
		snprintf(buf, len, "[unknown]");
}

size_t vmstack_process_lines(struct vmstack_process *p, const struct vmstack_where *w,
			     struct vmstack_name *names, size_t max)
{
	if (w->linked)
		return vmstack_file_lines(w->file, w->vaddr, w->name, !p->mangled, names, max);
	if (!max)
		return 0;
	names[0] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE, .function = w->name,
					  .file = "" };
	return 1;
}

void vmstack_process_set_vm_namer(struct vmstack_process *p, unsigned int vm,
				  const struct vmstack_vm_namer *namer)
{
	if (vm < VMSTACK_VM_MAX)
		p->vm_namer[vm] = *namer;
}

const struct vmstack_vm_across *vmstack_process_vm_across(const struct vmstack_process *p,
							  unsigned int vm)
{
	return vm < VMSTACK_VM_MAX && p->vm_namer[vm].across.mask ? &p->vm_namer[vm].across : NULL;
}

void vmstack_process_set_vm_across(struct vmstack_process *p, unsigned int vm,
				   const struct vmstack_vm_across *a)
{
	if (vm < VMSTACK_VM_MAX)
		p->vm_namer[vm].across = *a;
}

/* The PC a frame's name is kept by: 0 unless its runtime names lines. */
static uint64_t vm_name_pc(const struct vmstack_process *p, const struct vmstack_frame *f)
{
	return f->vm < VMSTACK_VM_MAX && p->vm_namer[f->vm].by_pc &&
	       f->kind == VMSTACK_FRAME_SCRIPT ? f->pc : 0;
}

/* The key of what @caller calls @f. */
static struct vmstack_vm_site site_of(const struct vmstack_frame *f,
				      const struct vmstack_frame *caller)
{
	return (struct vmstack_vm_site){ vmstack_frame_word(f), f->pc,
					 vmstack_frame_word(caller), caller->pc };
}

/* What @caller's call names @f, kept: its runtime tells, "" if nothing can be known. */
static void note_site(struct vmstack_process *p, const struct vmstack_frame *f,
		      const struct vmstack_frame *caller)
{
	const struct vmstack_vm_namer *namer = &p->vm_namer[f->vm];
	struct vmstack_vm_site s = site_of(f, caller);
	char name[256];

	if (vmstack_vm_sites_get(&p->vm_sites, &s))
		return;
	if (namer->site(namer->build, p->pid, f, caller, name, sizeof(name)))
		name[0] = 0;
	vmstack_vm_sites_put(&p->vm_sites, &s, name);
}

void vmstack_process_note_vm(struct vmstack_process *p, const struct vmstack_frame *f,
			     const struct vmstack_frame *caller)
{
	const struct vmstack_vm_namer *namer = &p->vm_namer[f->vm];
	struct vmstack_name_buf b = { 0 };
	uint64_t word = vmstack_frame_word(f), pc = vm_name_pc(p, f);
	struct vmstack_name n;

	/* Markers, not frames of a function: nothing to name. */
	if (f->kind == VMSTACK_FRAME_CUT || f->kind == VMSTACK_FRAME_UNVERIFIED || !namer->name)
		return;
	if (caller && namer->site)
		note_site(p, f, caller);
	if (!vmstack_vm_names_wanted(&p->vm_names, word, pc))
		return;
	/* A freed or moved object reads as garbage or not at all: say so, until a read succeeds. */
	if (namer->name(namer->build, p->pid, f, &b)) {
		b = (struct vmstack_name_buf){ 0 };
		snprintf(b.function, sizeof(b.function), "%s",
			 f->kind == VMSTACK_FRAME_SCRIPT ? "[unreadable]" :
			 f->kind == VMSTACK_FRAME_JIT ? "[jit]" : "[builtin]");
		n = vmstack_name_of(&b, f->kind);
		vmstack_vm_names_put_stand_in(&p->vm_names, word, pc, &n);
		return;
	}
	n = vmstack_name_of(&b, f->kind);
	vmstack_vm_names_put(&p->vm_names, word, pc, &n);
}

void vmstack_process_add_vm_name(struct vmstack_process *p, uint64_t ident, uint64_t pc,
				 const struct vmstack_name *n)
{
	/* A recording's names by PC: that VM's runtime names lines. */
	if (pc)
		p->vm_namer[vmstack_vmw_vm(ident)].by_pc = true;
	vmstack_vm_names_put(&p->vm_names, ident, pc, n);
}

const struct vmstack_vm_names *vmstack_process_vm_names(const struct vmstack_process *p)
{
	return &p->vm_names;
}

void vmstack_process_add_vm_site(struct vmstack_process *p, const struct vmstack_vm_site *s,
				 const char *name)
{
	vmstack_vm_sites_put(&p->vm_sites, s, name);
}

const struct vmstack_vm_sites *vmstack_process_vm_sites(const struct vmstack_process *p)
{
	return &p->vm_sites;
}

/*
 * VM frame @f's name: the one kept, else what the frame says of itself.
 * Where its caller's call names it, that is its function, shown at the
 * line the kept name has.
 */
static void vm_name(struct vmstack_process *p, const struct vmstack_frame *f,
		    const struct vmstack_frame *caller, struct vmstack_name *n, char *buf,
		    size_t len)
{
	const struct vmstack_name *kept =
		f->kind == VMSTACK_FRAME_CUT || f->kind == VMSTACK_FRAME_UNVERIFIED ? NULL :
		vmstack_vm_names_get(&p->vm_names, vmstack_frame_word(f), vm_name_pc(p, f));
	struct vmstack_vm_site s;
	const char *site = NULL;

	if (kept && caller) {
		s = site_of(f, caller);
		site = vmstack_vm_sites_get(&p->vm_sites, &s);
	}
	if (kept) {
		*n = *kept;
		n->kind = f->kind;
		if (site && site[0]) {
			n->function = site;
			n->flags |= VMSTACK_NAME_AT_LINE;
		}
	} else if (f->kind == VMSTACK_FRAME_SCRIPT) {
		snprintf(buf, len, "0x%" PRIx64, f->value);
	} else if (f->kind == VMSTACK_FRAME_BUILTIN) {
		snprintf(buf, len, "[builtin]");
	} else if (f->kind == VMSTACK_FRAME_JIT) {
		snprintf(buf, len, "[jit]");
	} else if (f->kind == VMSTACK_FRAME_UNVERIFIED) {
		snprintf(buf, len, "[vm unverified]");
	} else {
		snprintf(buf, len, "[vm stack cut: %" PRIu64 "]", f->value);
	}
}

void vmstack_process_name(struct vmstack_process *p, const struct vmstack_frame *f,
			  const struct vmstack_frame *caller, struct vmstack_name *n, char *buf,
			  size_t len)
{
	struct vmstack_where w;

	*n = (struct vmstack_name){ .kind = f->kind, .function = buf, .file = "" };
	switch (f->kind) {
	case VMSTACK_FRAME_NATIVE:
		vmstack_process_resolve(p, f->value, f->ret, &w, buf, len);
		n->function = w.name;
		break;
	case VMSTACK_FRAME_KERNEL:
		vmstack_kernel_symbol(f->value, f->ret, buf, len);
		break;
	case VMSTACK_FRAME_ROOT:
		snprintf(buf, len, "[root]");
		break;
	default:
		vm_name(p, f, caller, n, buf, len);
	}
}
