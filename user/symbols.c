// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo.h"
#include "demangle.h"
#include "elf_facts.h"
#include "lines.h"
#include "symbols.h"
#include "util.h"

static void add_sym(struct vmstack_symtab *t, uint64_t addr, uint64_t size,
		    const char *name, unsigned char rank)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->syms = xrealloc(t->syms, t->cap * sizeof(*t->syms));
	}
	t->syms[t->n].addr = addr;
	t->syms[t->n].size = size;
	t->syms[t->n].name = name;
	t->syms[t->n].rank = rank;
	t->n++;
}

/* Names not owned by an ELF image are kept as offsets until finish. */
static void add_owned_sym(struct vmstack_symtab *t, uint64_t addr,
			  uint64_t size, const char *name)
{
	size_t len = strlen(name) + 1;

	if (t->strings_len + len > t->strings_cap) {
		t->strings_cap = 2 * (t->strings_cap + len) + 4096;
		t->strings = xrealloc(t->strings, t->strings_cap);
	}
	memcpy(t->strings + t->strings_len, name, len);
	add_sym(t, addr, size, (const char *)(uintptr_t)t->strings_len, 0);
	t->strings_len += len;
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

static int cmp_sym(const void *a, const void *b)
{
	const struct vmstack_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer the entry that knows its size. */
	if ((x->size != 0) != (y->size != 0))
		return (y->size != 0) - (x->size != 0);
	/*
	 * Of aliases, the name callers use: a global one, then a weak one
	 * (a debug file's .symtab also has glibc's local __GI_ names), then
	 * the one with fewer leading underscores; the rest only makes the
	 * choice the same every time.
	 */
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (underscores(x->name) != underscores(y->name))
		return underscores(x->name) < underscores(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

void vmstack_symtab_finish(struct vmstack_symtab *t)
{
	size_t i, j;

	if (t->strings)
		for (i = 0; i < t->n; i++)
			t->syms[i].name = t->strings + (uintptr_t)t->syms[i].name;
	/* A file without symbols has no array: qsort() must not see NULL. */
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
	/* One entry per address (aliases: .symtab and .dynsym overlap). */
	for (i = j = 0; i < t->n; i++)
		if (!j || t->syms[j - 1].addr != t->syms[i].addr)
			t->syms[j++] = t->syms[i];
	t->n = j;
	t->loaded = 1;
}

/* Aliases' ranks: lower is preferred. */
static unsigned char bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* The defined functions of @elf's table of section type @type. */
static void add_functions(struct vmstack_symtab *t, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Sym sym;
		size_t k, nsyms;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || sh.sh_type != type)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		nsyms = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < nsyms; k++) {
			const char *name;
			int kind;

			if (!gelf_getsym(data, k, &sym))
				continue;
			kind = GELF_ST_TYPE(sym.st_info);
			if ((kind != STT_FUNC && kind != STT_GNU_IFUNC) ||
			    !sym.st_value || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				add_sym(t, sym.st_value, sym.st_size, name,
					bind_rank(GELF_ST_BIND(sym.st_info)));
		}
	}
}

/* Has @elf a section of @type (named @name, if not NULL)? */
static int has_section(Elf *elf, Elf64_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type &&
		    (!name || ((s = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(s, name))))
			return 1;
	return 0;
}

/*
 * A stripped file's separate debug file, opened with libelf as the file
 * is (the symbols' names point into it, so it stays open). Its code
 * sections are NOBITS, but .symtab and the DWARF are real, at the same
 * link-time addresses: the file's own load segments still convert.
 */
static void open_debug_file(struct vmstack_symtab *t, Elf *elf, const char *path)
{
	Elf *debug;
	int fd;

	fd = vmstack_debuginfo_open(elf, path);
	if (fd < 0)
		return;
	debug = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!debug || elf_kind(debug) != ELF_K_ELF) {
		elf_end(debug);
		close(fd);
		return;
	}
	t->debug_elf = debug;
	t->debug_fd = fd;
}

static int load_elf(struct vmstack_symtab *t, Elf *elf, const char *path)
{
	size_t i, nphdr, shstrndx;
	int have_symtab;
	GElf_Phdr ph;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	t->elf = elf;
	t->loads = xcalloc(nphdr, sizeof(*t->loads));
	for (i = 0; i < nphdr; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->loads[t->nloads].offset = ph.p_offset;
		t->loads[t->nloads].vaddr = ph.p_vaddr;
		t->loads[t->nloads].filesz = ph.p_filesz;
		t->nloads++;
	}
	have_symtab = has_section(elf, SHT_SYMTAB, NULL);
	/* Without a .symtab or DWARF, what a -dbg package installs has them. */
	if (path && (!have_symtab || !has_section(elf, SHT_PROGBITS, ".debug_info")))
		open_debug_file(t, elf, path);
	/* .symtab has everything .dynsym has; read .dynsym only without one. */
	if (have_symtab)
		add_functions(t, elf, SHT_SYMTAB);
	else if (t->debug_elf && has_section(t->debug_elf, SHT_SYMTAB, NULL))
		add_functions(t, t->debug_elf, SHT_SYMTAB);
	else
		add_functions(t, elf, SHT_DYNSYM);
	vmstack_symtab_finish(t);
	return 0;
}

int vmstack_symtab_load_elf(struct vmstack_symtab *t, int fd, const char *path)
{
	elf_version(EV_CURRENT);
	t->fd = fd;
	return load_elf(t, elf_begin(fd, ELF_C_READ_MMAP, NULL), path);
}

int vmstack_symtab_load_elf_mem(struct vmstack_symtab *t, void *image,
				size_t size)
{
	elf_version(EV_CURRENT);
	t->fd = -1;
	return load_elf(t, elf_memory(image, size), NULL);
}

int vmstack_symtab_load_kallsyms(struct vmstack_symtab *t, const char *path)
{
	char line[512], *p, *name;
	unsigned long long addr;
	static char buf[1 << 16];
	int nonzero = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	/* Bigger reads: fewer trips through the kernel's seq_file. */
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	t->fd = -1;
	/*
	 * "ADDR TYPE NAME[\t[MODULE]]", split by hand: sscanf() took most
	 * of the recorder's start-up (120,000 lines).
	 */
	while (fgets(line, sizeof(line), f)) {
		addr = strtoull(line, &p, 16);
		if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		if (p[1] != 't' && p[1] != 'T' && p[1] != 'w' && p[1] != 'W')
			continue;
		name = p + 3;
		name[strcspn(name, " \t\n")] = 0;
		if (!*name)
			continue;
		nonzero |= addr != 0;
		add_owned_sym(t, addr, 0, name);
	}
	fclose(f);
	vmstack_symtab_finish(t);
	/* Without privilege every address reads as 0: no use. */
	return nonzero ? 0 : -1;
}

int vmstack_symtab_load_perf_map(struct vmstack_symtab *t, const char *path)
{
	unsigned long long start, size;
	char line[1024];
	int pos;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	t->fd = -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %n", &start, &size, &pos) < 2)
			continue;
		line[strcspn(line, "\n")] = 0;
		add_owned_sym(t, start, size, line + pos);
	}
	fclose(f);
	vmstack_symtab_finish(t);
	return 0;
}

const struct vmstack_sym *vmstack_symtab_find(const struct vmstack_symtab *t,
					      uint64_t addr)
{
	/* The last symbol at or below addr. */
	size_t lo = count_at_or_below(t->syms, t->n, sizeof(*t->syms),
				      offsetof(struct vmstack_sym, addr), addr);
	const struct vmstack_sym *s;

	if (!lo)
		return NULL;
	s = &t->syms[lo - 1];
	/* A size of 0 (assembly, kallsyms): trust it up to the next one. */
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

int vmstack_symtab_vaddr(const struct vmstack_symtab *t, uint64_t file_off,
			 uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < t->nloads; i++)
		if (file_off >= t->loads[i].offset &&
		    file_off < t->loads[i].offset + t->loads[i].filesz) {
			*vaddr = file_off - t->loads[i].offset + t->loads[i].vaddr;
			return 0;
		}
	return -1;
}

const char *vmstack_symtab_build_id(struct vmstack_symtab *t)
{
	if (!t->build_id_tried && t->elf) {
		t->build_id_tried = 1;
		if (vmstack_elf_build_id(t->elf, t->build_id, sizeof(t->build_id)))
			t->build_id[0] = 0;
	}
	return t->build_id;
}

const struct vmstack_cfi_table *vmstack_symtab_cfi(struct vmstack_symtab *t)
{
	if (!t->cfi_tried && t->elf) {
		t->cfi_tried = 1;
		t->cfi = xcalloc(1, sizeof(*t->cfi));
		if (vmstack_cfi_build(t->elf, t->cfi)) {
			free(t->cfi);
			t->cfi = NULL;
		}
	}
	return t->cfi;
}

void vmstack_symtab_free(struct vmstack_symtab *t)
{
	size_t i;

	for (i = 0; t->shown && i < t->n; i++)
		if (t->shown[i] != t->syms[i].name)
			free((char *)t->shown[i]);
	free(t->shown);
	if (t->cfi) {
		vmstack_cfi_free(t->cfi);
		free(t->cfi);
	}
	vmstack_lines_close(t->lines);
	if (t->debug_elf) {
		elf_end(t->debug_elf);
		close(t->debug_fd);
	}
	if (t->elf)
		elf_end(t->elf);
	if (t->fd >= 0)
		close(t->fd);
	free(t->syms);
	free(t->strings);
	free(t->loads);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

/* ---- the symbolizer of one process ---- */

/*
 * A file's symbols and unwind rows, shared by every symbolizer (process)
 * that maps it: a whole-machine recording reads libc once, not once per
 * process. Held by reference; freed with its last symbolizer.
 */
struct vmstack_file {
	char *key;		/* "dev:inode:path" */
	unsigned int refs;
	struct vmstack_symtab tab;
};

static struct {
	struct vmstack_file **v;
	size_t n, cap;
} shared_files;

/* The kernel's symbols: one table for every process. */
static struct vmstack_symtab kernel_tab = { .fd = -1 };
static int kernel_tried;

static struct vmstack_file *shared_file_find(const char *key)
{
	size_t i;

	for (i = 0; i < shared_files.n; i++)
		if (!strcmp(shared_files.v[i]->key, key))
			return shared_files.v[i];
	return NULL;
}

static void shared_file_put(struct vmstack_file *f)
{
	size_t i;

	if (--f->refs)
		return;
	for (i = 0; i < shared_files.n; i++)
		if (shared_files.v[i] == f) {
			shared_files.v[i] = shared_files.v[--shared_files.n];
			break;
		}
	if (!shared_files.n) {
		free(shared_files.v);
		shared_files.v = NULL;
		shared_files.cap = 0;
	}
	vmstack_symtab_free(&f->tab);
	free(f->key);
	free(f);
}

/* A native address's frames with lines, by file and link-time address. */
struct line_entry {
	const struct vmstack_symtab *tab;
	uint64_t vaddr;
	struct vmstack_name *names;	/* n frames, outermost first (copies); NULL: a free slot */
	size_t n;
};

#define LINE_NAME_LEN 512

/* A VM frame's name, by its word and (for runtimes naming lines) its PC. */
struct vm_name {
	uint64_t ident, pc;
	struct vmstack_name n;	/* function and file in one block; NULL: a free slot */
};

struct vmstack_symbolizer {
	int pid;
	struct vmstack_maps maps;
	/*
	 * One allocation per file: mappings keep pointers to their file's
	 * table, which must not move when more files come (a realloc'd
	 * array of tables did, and a process mapping over 32 files crashed
	 * the recorder).
	 */
	struct vmstack_file **files;
	size_t nfiles, capfiles;
	struct vmstack_symtab vdso, perf_map;
	int vdso_tried;
	vmstack_new_map_fn on_new_map;
	void *on_new_map_arg;
	struct vmstack_vm_namer vm_namer[VMSTACK_VM_MAX];
	struct vm_name *vm_names;
	size_t vm_nslots, vm_n;
	struct line_entry *lines;
	size_t lines_nslots, lines_n;
	char line_buf[LINE_NAME_LEN];	/* a frame not in a file: not kept */
	bool mangled;		/* --no-demangle */
};

/* Forget the frames with lines found so far (named another way now). */
static void lines_drop(struct vmstack_symbolizer *s)
{
	size_t i, k;

	for (i = 0; i < s->lines_nslots; i++) {
		for (k = 0; k < s->lines[i].n; k++)
			vmstack_name_free(&s->lines[i].names[k]);
		free(s->lines[i].names);
	}
	free(s->lines);
	s->lines = NULL;
	s->lines_nslots = s->lines_n = 0;
}

void vmstack_symbolizer_demangle(struct vmstack_symbolizer *s, bool on)
{
	if (s->mangled == !on)
		return;
	s->mangled = !on;
	lines_drop(s);
}

void vmstack_symbolizer_set_vm_namer(struct vmstack_symbolizer *s,
				     unsigned int vm,
				     const struct vmstack_vm_namer *namer)
{
	if (vm < VMSTACK_VM_MAX)
		s->vm_namer[vm] = *namer;
}

static size_t vm_slot(struct vmstack_symbolizer *s, uint64_t ident, uint64_t pc)
{
	uint64_t key[2] = { ident, pc };
	size_t j = hash_bytes(key, sizeof(key), 1) & (s->vm_nslots - 1);

	while (s->vm_names[j].n.function &&
	       (s->vm_names[j].ident != ident || s->vm_names[j].pc != pc))
		j = (j + 1) & (s->vm_nslots - 1);
	return j;
}

/* The PC a frame's name is kept by: 0 unless its runtime names lines. */
static uint64_t vm_name_pc(const struct vmstack_symbolizer *s, const struct vmstack_frame *f)
{
	return f->vm < VMSTACK_VM_MAX && s->vm_namer[f->vm].by_pc &&
	       f->kind == VMSTACK_FRAME_SCRIPT ? f->pc : 0;
}

/* Cache @n for @ident at @pc (the first name given wins). */
static void vm_name_put(struct vmstack_symbolizer *s, uint64_t ident, uint64_t pc,
			const struct vmstack_name *n)
{
	size_t i, j;

	if (2 * (s->vm_n + 1) > s->vm_nslots) {
		size_t old = s->vm_nslots;
		struct vm_name *v = s->vm_names;

		s->vm_nslots = old ? 2 * old : 256;
		s->vm_names = xcalloc(s->vm_nslots, sizeof(*s->vm_names));
		for (i = 0; i < old; i++)
			if (v[i].n.function)
				s->vm_names[vm_slot(s, v[i].ident, v[i].pc)] = v[i];
		free(v);
	}
	j = vm_slot(s, ident, pc);
	if (s->vm_names[j].n.function)
		return;
	s->vm_names[j].ident = ident;
	s->vm_names[j].pc = pc;
	s->vm_names[j].n = vmstack_name_dup(n);
	s->vm_n++;
}

void vmstack_symbolizer_note_vm(struct vmstack_symbolizer *s,
				const struct vmstack_frame *f)
{
	const struct vmstack_vm_namer *namer = &s->vm_namer[f->vm];
	struct vmstack_name_buf b = { 0 };
	struct vmstack_name n;
	uint64_t pc = vm_name_pc(s, f);

	/* Markers, not frames of a function: nothing to name. */
	if (f->kind == VMSTACK_FRAME_CUT || f->kind == VMSTACK_FRAME_UNVERIFIED ||
	    !namer->name || (s->vm_nslots && s->vm_names[vm_slot(s, vmstack_frame_word(f), pc)].n.function))
		return;
	/* A freed or moved object reads as garbage or not at all: say so. */
	if (namer->name(namer->build, s->pid, f, &b)) {
		b = (struct vmstack_name_buf){ 0 };
		snprintf(b.function, sizeof(b.function), "%s",
			 f->kind == VMSTACK_FRAME_SCRIPT ? "[unreadable]" :
			 f->kind == VMSTACK_FRAME_JIT ? "[jit]" : "[builtin]");
	}
	n = vmstack_name_of(&b, f->kind);
	vm_name_put(s, vmstack_frame_word(f), pc, &n);
}

void vmstack_symbolizer_add_vm_name(struct vmstack_symbolizer *s,
				    uint64_t ident, uint64_t pc,
				    const struct vmstack_name *n)
{
	/* A recording's names by PC: that VM's runtime names lines. */
	if (pc)
		s->vm_namer[vmstack_vmw_vm(ident)].by_pc = true;
	vm_name_put(s, ident, pc, n);
}

size_t vmstack_symbolizer_nr_vm_names(const struct vmstack_symbolizer *s)
{
	return s->vm_n;
}

int vmstack_symbolizer_each_vm_name(const struct vmstack_symbolizer *s,
				    vmstack_vm_name_fn fn, void *arg)
{
	size_t i;
	int err;

	for (i = 0; i < s->vm_nslots; i++)
		if (s->vm_names[i].n.function &&
		    (err = fn(arg, s->vm_names[i].ident, s->vm_names[i].pc, &s->vm_names[i].n)))
			return err;
	return 0;
}

/* VM frame @f's name: the cached one, else what the frame says of itself. */
static void symbolize_vm(struct vmstack_symbolizer *s, const struct vmstack_frame *f,
			 struct vmstack_name *n, char *buf, size_t len)
{
	const struct vm_name *v = NULL;

	if (s->vm_nslots && f->kind != VMSTACK_FRAME_CUT && f->kind != VMSTACK_FRAME_UNVERIFIED)
		v = &s->vm_names[vm_slot(s, vmstack_frame_word(f), vm_name_pc(s, f))];
	if (v && v->n.function) {
		*n = v->n;
		n->kind = f->kind;
		return;
	}
	n->function = buf;
	if (f->kind == VMSTACK_FRAME_SCRIPT)
		snprintf(buf, len, "0x%" PRIx64, f->value);
	else if (f->kind == VMSTACK_FRAME_BUILTIN)
		snprintf(buf, len, "[builtin]");
	else if (f->kind == VMSTACK_FRAME_JIT)
		snprintf(buf, len, "[jit]");
	else if (f->kind == VMSTACK_FRAME_UNVERIFIED)
		snprintf(buf, len, "[vm unverified]");
	else
		snprintf(buf, len, "[vm stack cut: %" PRIu64 "]", f->value);
}

void vmstack_symbolizer_on_new_map(struct vmstack_symbolizer *s,
				   vmstack_new_map_fn fn, void *arg)
{
	s->on_new_map = fn;
	s->on_new_map_arg = arg;
}

struct vmstack_symbolizer *vmstack_symbolizer_new(int pid)
{
	struct vmstack_symbolizer *s = xcalloc(1, sizeof(*s));

	s->pid = pid;
	s->vdso.fd = s->perf_map.fd = -1;
	return s;
}

/*
 * Symbol tables are cached per file (device, inode and path), so a library
 * mapped several times, seen again after a refresh or mapped by another
 * process, is read once. With @load 0, only a file this symbolizer read
 * before is returned (else NULL).
 */
static struct vmstack_symtab *file_symtab(struct vmstack_symbolizer *s,
					  const struct vmstack_map *m, int load)
{
	char key[4200], path[4200];
	struct vmstack_file *f;
	size_t i;
	int fd;

	snprintf(key, sizeof(key), "%" PRIu64 ":%" PRIu64 ":%s", m->dev, m->inode, m->path);
	for (i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i]->key, key))
			return &s->files[i]->tab;
	if (!load)
		return NULL;
	if (s->nfiles == s->capfiles) {
		s->capfiles = s->capfiles ? 2 * s->capfiles : 32;
		s->files = xrealloc(s->files, s->capfiles * sizeof(*s->files));
	}
	f = shared_file_find(key);
	if (f) {
		f->refs++;
		s->files[s->nfiles++] = f;
		return &f->tab;
	}
	if (shared_files.n == shared_files.cap) {
		shared_files.cap = shared_files.cap ? 2 * shared_files.cap : 32;
		shared_files.v = xrealloc(shared_files.v, shared_files.cap * sizeof(*shared_files.v));
	}
	f = xcalloc(1, sizeof(*f));
	f->refs = 1;
	shared_files.v[shared_files.n++] = f;
	s->files[s->nfiles++] = f;
	f->key = xstrdup(key);
	f->tab.fd = -1;
	/* Through the target's root, so a process in a container works. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", s->pid, m->path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && vmstack_symtab_load_elf(&f->tab, fd, m->path))
		f->tab.loaded = 0;
	return &f->tab;
}

/* The vDSO image is the same in every process: read our own. */
static struct vmstack_symtab *vdso_symtab(struct vmstack_symbolizer *s)
{
	Elf64_Ehdr *ehdr = (Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);

	if (!s->vdso_tried && ehdr) {
		s->vdso_tried = 1;
		/* The image ends with its section headers. */
		vmstack_symtab_load_elf_mem(&s->vdso, ehdr,
					    ehdr->e_shoff +
					    (size_t)ehdr->e_shnum * ehdr->e_shentsize);
	}
	return s->vdso.loaded ? &s->vdso : NULL;
}

int vmstack_symbolizer_add_maps(struct vmstack_symbolizer *s, FILE *f)
{
	size_t i, first = s->maps.n;
	int added, pass;

	added = (int)vmstack_maps_update(&s->maps, f);
	/*
	 * Files already read (prewarmed before exec, or mapped before) go
	 * first: when a loader has just mapped several libraries, the C
	 * library's rules must not wait while others are read (under TCG
	 * that took 150 ms, and every stack stopped in libc meanwhile).
	 */
	for (pass = 0; pass < 2; pass++)
		for (i = first; i < s->maps.n; i++) {
			struct vmstack_map *m = &s->maps.v[i];

			if (m->symtab)
				continue;
			if (m->perms[2] == 'x' && m->path[0] == '/')
				m->symtab = file_symtab(s, m, pass);
			else if (pass && !strcmp(m->path, "[vdso]"))
				m->symtab = vdso_symtab(s);
			if (m->symtab && s->on_new_map)
				s->on_new_map(s->on_new_map_arg, m);
		}
	return added;
}

int vmstack_symbolizer_refresh(struct vmstack_symbolizer *s)
{
	char path[64];
	FILE *f;

	int added;

	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	added = vmstack_symbolizer_add_maps(s, f);
	fclose(f);
	return added;
}

int vmstack_symbolizer_knows(struct vmstack_symbolizer *s, uint64_t addr)
{
	return vmstack_is_vmw(addr) || vmstack_maps_find(&s->maps, addr) != NULL;
}

/* The file offset of link-time address @vaddr; 0, or -1 if not loaded. */
static int symtab_file_off(const struct vmstack_symtab *t, uint64_t vaddr,
			   uint64_t *off)
{
	size_t i;

	for (i = 0; i < t->nloads; i++)
		if (vaddr >= t->loads[i].vaddr &&
		    vaddr < t->loads[i].vaddr + t->loads[i].filesz) {
			*off = vaddr - t->loads[i].vaddr + t->loads[i].offset;
			return 0;
		}
	return -1;
}

int vmstack_symbolizer_where(struct vmstack_symbolizer *s, uint64_t addr,
			     int ret, struct vmstack_where *w)
{
	uint64_t pc = ret ? addr - 1 : addr, vaddr, off;
	struct vmstack_map *m = vmstack_maps_find(&s->maps, pc);
	const struct vmstack_sym *sym;
	struct vmstack_symtab *tab;

	if (!m || m->path[0] != '/')
		return -1;
	tab = m->symtab;
	w->map = m;
	w->build_id = tab ? vmstack_symtab_build_id(tab) : "";
	w->addr = pc;
	/* The entry, when it lies in the same mapping (it does but in odd files). */
	if (tab && !vmstack_symtab_vaddr(tab, pc - m->start + m->offset, &vaddr) &&
	    (sym = vmstack_symtab_find(tab, vaddr)) &&
	    !symtab_file_off(tab, sym->addr, &off) &&
	    off >= m->offset && off - m->offset < m->end - m->start)
		w->addr = m->start + (off - m->offset);
	return 0;
}

size_t vmstack_symbolizer_nr_maps(const struct vmstack_symbolizer *s)
{
	return s->maps.n;
}

int vmstack_symbolizer_write_maps(const struct vmstack_symbolizer *s, FILE *f)
{
	size_t i;

	for (i = 0; i < s->maps.n; i++) {
		const struct vmstack_map *m = &s->maps.v[i];

		if (fprintf(f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64
			    " 00:00 %" PRIu64 " %s\n", m->start, m->end, m->perms,
			    m->offset, m->inode, m->path) < 0)
			return -1;
	}
	return 0;
}

void vmstack_symbolizer_prewarm(struct vmstack_symbolizer *s, const char *path)
{
	struct vmstack_map m = { 0 };
	struct vmstack_symtab *tab;
	char real[PATH_MAX];
	struct stat st;

	/* The maps name files by their canonical path. */
	if (!realpath(path, real) || stat(real, &st))
		return;
	m.inode = st.st_ino;
	m.dev = st.st_dev;
	m.path = real;
	tab = file_symtab(s, &m, 1);
	vmstack_symtab_cfi(tab);
}

void vmstack_symbolizer_load_perf_map(struct vmstack_symbolizer *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", s->pid);
	vmstack_symtab_free(&s->perf_map);
	vmstack_symtab_load_perf_map(&s->perf_map, path);
}

static const char *base_name(const char *path)
{
	const char *p = strrchr(path, '/');

	return p ? p + 1 : path;
}

/*
 * @sym's name as frames show it: its symbol version cut (a .symtab's
 * memcpy@@GLIBC_2.14 is memcpy) and demangled. Made the first time a
 * frame is named by it and kept with its file's table, shared by every
 * process that maps the file: a profile names its symbols once per
 * distinct stack, and most of a file's never.
 */
static const char *shown_name(struct vmstack_symtab *t, const struct vmstack_sym *sym)
{
	size_t i = (size_t)(sym - t->syms), k = strcspn(sym->name, "@");
	const char *name = sym->name;
	char *cut = NULL, *d;

	if (!t->shown)
		t->shown = xcalloc(t->n, sizeof(*t->shown));
	if (t->shown[i])
		return t->shown[i];
	if (name[k]) {
		cut = xmalloc(k + 1);
		memcpy(cut, name, k);
		cut[k] = 0;
		name = cut;
	}
	d = vmstack_demangle(name);
	if (d) {
		free(cut);
		name = d;
	}
	t->shown[i] = name;
	return name;
}

/*
 * The name of user address @addr: a symbol's (not cut: a C++ function's
 * can be thousands of bytes), or one made in @buf.
 */
static const char *user_name(struct vmstack_symbolizer *s, uint64_t addr,
			     int ret, char *buf, size_t len)
{
	uint64_t pc = ret ? addr - 1 : addr, vaddr;
	const struct vmstack_sym *sym;
	struct vmstack_symtab *tab;
	struct vmstack_map *m;

	m = vmstack_maps_find(&s->maps, pc);
	if (m && m->symtab) {
		tab = m->symtab;
		/*
		 * Known file, unknown function: an address addr2line takes
		 * (the file offset where the file could not be read).
		 */
		if (vmstack_symtab_vaddr(tab, pc - m->start + m->offset, &vaddr))
			vaddr = pc - m->start + m->offset;
		else if ((sym = vmstack_symtab_find(tab, vaddr))) {
			if (!s->mangled)
				return shown_name(tab, sym);
			if (!sym->name[strcspn(sym->name, "@")])
				return sym->name;
			snprintf(buf, len, "%.*s", (int)strcspn(sym->name, "@"), sym->name);
			return buf;
		}
		snprintf(buf, len, "%s+0x%" PRIx64, base_name(m->path), vaddr);
		return buf;
	}
	sym = s->perf_map.loaded ? vmstack_symtab_find(&s->perf_map, pc) : NULL;
	if (sym && (!m || m->path[0] != '/'))
		return sym->name;
	if (m && m->path[0])
		snprintf(buf, len, "%s+0x%" PRIx64, m->path,
			 pc - m->start + m->offset);
	else
		snprintf(buf, len, "[unknown]");
	return buf;
}

const char *vmstack_symbolize_user(struct vmstack_symbolizer *s, uint64_t addr,
				   int ret, char *buf, size_t len)
{
	const char *name = user_name(s, addr, ret, buf, len);

	if (name != buf)
		snprintf(buf, len, "%s", name);
	return buf;
}

static size_t line_slot(const struct vmstack_symbolizer *s,
			const struct vmstack_symtab *tab, uint64_t vaddr)
{
	uint64_t key[2] = { (uint64_t)(uintptr_t)tab, vaddr };
	size_t j = hash_bytes(key, sizeof(key), 2) & (s->lines_nslots - 1);

	while (s->lines[j].names && (s->lines[j].tab != tab || s->lines[j].vaddr != vaddr))
		j = (j + 1) & (s->lines_nslots - 1);
	return j;
}

/* An empty slot for (@tab, @vaddr), the table grown if need be. */
static struct line_entry *line_new(struct vmstack_symbolizer *s,
				   const struct vmstack_symtab *tab, uint64_t vaddr)
{
	struct line_entry *e;
	size_t i;

	if (2 * (s->lines_n + 1) > s->lines_nslots) {
		struct line_entry *old = s->lines;
		size_t nold = s->lines_nslots;

		s->lines_nslots = nold ? 2 * nold : 1024;
		s->lines = xcalloc(s->lines_nslots, sizeof(*s->lines));
		for (i = 0; i < nold; i++)
			if (old[i].names)
				s->lines[line_slot(s, old[i].tab, old[i].vaddr)] = old[i];
		free(old);
	}
	e = &s->lines[line_slot(s, tab, vaddr)];
	e->tab = tab;
	e->vaddr = vaddr;
	s->lines_n++;
	return e;
}

/* @f's file and line in @n when DWARF has both (shown then). */
static void line_at(struct vmstack_name *n, const struct vmstack_line_frame *f)
{
	if (f && f->file && f->line > 0) {
		n->file = f->file;
		n->line = (uint32_t)f->line;
		n->flags |= VMSTACK_NAME_AT_LINE;
	}
}

/* Find the frames of @addr (link-time @vaddr in @tab) and keep them. */
static struct line_entry *line_fill(struct vmstack_symbolizer *s,
				    struct vmstack_symtab *tab, uint64_t addr,
				    int ret, uint64_t vaddr)
{
	struct vmstack_line_frame f[VMSTACK_MAX_INLINE];
	struct vmstack_name v[VMSTACK_MAX_INLINE];
	char buf[LINE_NAME_LEN], *d[VMSTACK_MAX_INLINE] = { NULL };
	struct line_entry *e;
	int i, n = 0;

	if (!tab->lines_tried) {
		tab->lines_tried = 1;
		tab->lines = vmstack_lines_open(tab->elf);
		if (!tab->lines && tab->debug_elf)
			tab->lines = vmstack_lines_open(tab->debug_elf);
	}
	if (tab->lines)
		n = vmstack_lines_at(tab->lines, vaddr, f, VMSTACK_MAX_INLINE);
	/* The outermost function keeps its symbol's name, as without lines. */
	v[0] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE, .file = "",
		.function = user_name(s, addr, ret, buf, sizeof(buf)) };
	line_at(&v[0], n ? &f[0] : NULL);
	for (i = 1; i < n; i++) {
		v[i] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE,
			.function = f[i].func ? f[i].func : "[unknown]", .file = "",
			.flags = f[i].inlined ? VMSTACK_NAME_INLINED : 0 };
		/*
		 * A C++ or Rust function inlined is named as its symbol would
		 * be (DWARF's name is "loop" for tarantool::fiber::loop()).
		 */
		if (f[i].linkage && s->mangled)
			v[i].function = f[i].linkage;
		else if (f[i].linkage && (d[i] = vmstack_demangle(f[i].linkage)))
			v[i].function = d[i];
		line_at(&v[i], &f[i]);
	}
	n = n ? n : 1;
	/* Copies: libdw's strings live as long as the file's DWARF, the name not even that. */
	e = line_new(s, tab, vaddr);
	e->names = xmalloc((size_t)n * sizeof(*e->names));
	for (i = 0; i < n; i++) {
		e->names[i] = vmstack_name_dup(&v[i]);
		free(d[i]);
	}
	e->n = (size_t)n;
	return e;
}

size_t vmstack_symbolize_user_lines(struct vmstack_symbolizer *s, uint64_t addr,
				    int ret, struct vmstack_name *names, size_t max)
{
	uint64_t pc = ret ? addr - 1 : addr, vaddr;
	struct vmstack_map *m = vmstack_maps_find(&s->maps, pc);
	struct vmstack_symtab *tab = m ? m->symtab : NULL;
	const struct line_entry *e;
	size_t i;

	if (!max)
		return 0;
	if (!tab || !tab->elf || vmstack_symtab_vaddr(tab, pc - m->start + m->offset, &vaddr)) {
		names[0] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE, .file = "",
			.function = user_name(s, addr, ret, s->line_buf, sizeof(s->line_buf)) };
		return 1;
	}
	e = s->lines_nslots ? &s->lines[line_slot(s, tab, vaddr)] : NULL;
	if (!e || !e->names)
		e = line_fill(s, tab, addr, ret, vaddr);
	for (i = 0; i < e->n && i < max; i++)
		names[i] = e->names[i];
	return i;
}

const char *vmstack_symbolize_kernel(uint64_t addr, int ret, char *buf, size_t len)
{
	uint64_t pc = ret ? addr - 1 : addr;
	const struct vmstack_sym *sym;

	if (!kernel_tried) {
		kernel_tried = 1;
		if (vmstack_symtab_load_kallsyms(&kernel_tab, "/proc/kallsyms"))
			kernel_tab.loaded = 0;
	}
	sym = kernel_tab.loaded ? vmstack_symtab_find(&kernel_tab, pc) : NULL;
	snprintf(buf, len, "%s", sym ? sym->name : "[kernel]");
	return buf;
}

void vmstack_symbolize(struct vmstack_symbolizer *s, const struct vmstack_frame *f,
		       struct vmstack_name *n, char *buf, size_t len)
{
	*n = (struct vmstack_name){ .kind = f->kind, .function = buf, .file = "" };
	switch (f->kind) {
	case VMSTACK_FRAME_NATIVE:
		n->function = user_name(s, f->value, f->ret, buf, len);
		break;
	case VMSTACK_FRAME_KERNEL:
		vmstack_symbolize_kernel(f->value, f->ret, buf, len);
		break;
	case VMSTACK_FRAME_ROOT:
		snprintf(buf, len, "[root]");
		break;
	default:
		symbolize_vm(s, f, n, buf, len);
	}
}

void vmstack_symbolizer_free(struct vmstack_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles; i++)
		shared_file_put(s->files[i]);
	free(s->files);
	vmstack_maps_free(&s->maps);
	vmstack_symtab_free(&s->vdso);
	vmstack_symtab_free(&s->perf_map);
	for (i = 0; i < s->vm_nslots; i++)
		vmstack_name_free(&s->vm_names[i].n);
	free(s->vm_names);
	lines_drop(s);
	free(s);
}
