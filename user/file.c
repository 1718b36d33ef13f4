// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "debuginfo.h"
#include "demangle.h"
#include "elf_facts.h"
#include "file.h"
#include "lines.h"
#include "util.h"

/* An address's frames with lines, by link-time address. */
struct line_entry {
	uint64_t vaddr;
	struct vmstack_name *names;	/* n frames, outermost first (copies); NULL: a free slot */
	size_t n;
};

struct vmstack_file {
	char *key;		/* "DEV:INODE:PATH" */
	const char *path;	/* in key */
	unsigned int refs;
	struct vmstack_file *next;	/* in its bucket of the registry */
	int fd;
	Elf *elf;		/* NULL: unreadable */
	struct { uint64_t offset, vaddr, filesz; } *loads;
	size_t nloads;
	/* Each read on first use: */
	int debug_tried;
	Elf *debug_elf;		/* the separate debug file's, or NULL */
	int debug_fd;
	int syms_tried;
	struct vmstack_symtab syms;	/* names point into elf or debug_elf */
	const char **shown;	/* per symbol, its name as frames show it; NULL: not made yet */
	int cfi_tried;
	struct vmstack_cfi_table *cfi;
	int build_id_tried;
	char build_id[41];	/* hex, "" if none */
	int lines_tried;
	struct vmstack_lines *lines;
	struct line_entry *line_cache;
	size_t line_nslots, line_n;
	bool line_mangled;	/* the cache's inlined names as the file spells them */
};

/* Every file open, by key: a process's mappings find theirs here. */
static struct {
	struct vmstack_file **buckets;
	size_t nbuckets, n;
} files;

static size_t bucket_of(const char *key, size_t nbuckets)
{
	return hash_bytes(key, strlen(key), 3) & (nbuckets - 1);
}

static struct vmstack_file *lookup(const char *key)
{
	struct vmstack_file *f;

	if (!files.n)
		return NULL;
	for (f = files.buckets[bucket_of(key, files.nbuckets)]; f; f = f->next)
		if (!strcmp(f->key, key))
			return f;
	return NULL;
}

static void insert(struct vmstack_file *f)
{
	struct vmstack_file **old = files.buckets, *g, *next;
	size_t i, nold = files.nbuckets, j;

	if (files.n + 1 > files.nbuckets) {
		files.nbuckets = nold ? 2 * nold : 64;
		files.buckets = xcalloc(files.nbuckets, sizeof(*files.buckets));
		for (i = 0; i < nold; i++)
			for (g = old[i]; g; g = next) {
				next = g->next;
				j = bucket_of(g->key, files.nbuckets);
				g->next = files.buckets[j];
				files.buckets[j] = g;
			}
		free(old);
	}
	j = bucket_of(f->key, files.nbuckets);
	f->next = files.buckets[j];
	files.buckets[j] = f;
	files.n++;
}

static void unlink_file(struct vmstack_file *f)
{
	struct vmstack_file **p = &files.buckets[bucket_of(f->key, files.nbuckets)];

	while (*p != f)
		p = &(*p)->next;
	*p = f->next;
	if (!--files.n) {
		free(files.buckets);
		files.buckets = NULL;
		files.nbuckets = 0;
	}
}

static void make_key(char *key, size_t len, uint64_t dev, uint64_t inode, const char *path)
{
	snprintf(key, len, "%" PRIu64 ":%" PRIu64 ":%s", dev, inode, path);
}

/* A new object for @key, in the registry, with the ELF @elf (NULL: unreadable). */
static struct vmstack_file *new_file(const char *key, size_t path_at, Elf *elf, int fd)
{
	struct vmstack_file *f = xcalloc(1, sizeof(*f));
	size_t i, nphdr, shstrndx;
	GElf_Phdr ph;

	f->key = xstrdup(key);
	f->path = f->key + path_at;
	f->refs = 1;
	f->fd = fd;
	f->debug_fd = -1;
	if (elf && (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) ||
		    elf_getshdrstrndx(elf, &shstrndx))) {
		elf_end(elf);
		elf = NULL;
	}
	f->elf = elf;
	if (elf) {
		f->loads = xcalloc(nphdr ? nphdr : 1, sizeof(*f->loads));
		for (i = 0; i < nphdr; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			f->loads[f->nloads].offset = ph.p_offset;
			f->loads[f->nloads].vaddr = ph.p_vaddr;
			f->loads[f->nloads].filesz = ph.p_filesz;
			f->nloads++;
		}
	}
	insert(f);
	return f;
}

struct vmstack_file *vmstack_file_find(uint64_t dev, uint64_t inode, const char *path)
{
	struct vmstack_file *f;
	char key[4200];

	make_key(key, sizeof(key), dev, inode, path);
	f = lookup(key);
	if (f)
		f->refs++;
	return f;
}

struct vmstack_file *vmstack_file_get(uint64_t dev, uint64_t inode, const char *path,
				      int pid)
{
	struct vmstack_file *f = vmstack_file_find(dev, inode, path);
	char key[4200], at[4200];
	int fd;

	if (f)
		return f;
	make_key(key, sizeof(key), dev, inode, path);
	/* Through the target's root, so a process in a container works. */
	snprintf(at, sizeof(at), "/proc/%d/root%s", pid, path);
	fd = pid > 0 ? open(at, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	elf_version(EV_CURRENT);
	return new_file(key, strlen(key) - strlen(path), fd < 0 ? NULL :
			elf_begin(fd, ELF_C_READ_MMAP, NULL), fd);
}

struct vmstack_file *vmstack_file_vdso(void)
{
	Elf64_Ehdr *ehdr = (Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct vmstack_file *f = vmstack_file_find(0, 0, "[vdso]");
	char key[64];

	if (f)
		return f;
	make_key(key, sizeof(key), 0, 0, "[vdso]");
	elf_version(EV_CURRENT);
	/* The image ends with its section headers. */
	return new_file(key, strlen(key) - strlen("[vdso]"), !ehdr ? NULL :
			elf_memory((char *)ehdr, ehdr->e_shoff +
				   (size_t)ehdr->e_shnum * ehdr->e_shentsize), -1);
}

/* Forget the frames with lines found so far (named another way now). */
static void lines_drop(struct vmstack_file *f)
{
	size_t i, k;

	for (i = 0; i < f->line_nslots; i++) {
		for (k = 0; k < f->line_cache[i].n; k++)
			vmstack_name_free(&f->line_cache[i].names[k]);
		free(f->line_cache[i].names);
	}
	free(f->line_cache);
	f->line_cache = NULL;
	f->line_nslots = f->line_n = 0;
}

void vmstack_file_put(struct vmstack_file *f)
{
	size_t i;

	if (!f || --f->refs)
		return;
	unlink_file(f);
	lines_drop(f);
	vmstack_lines_close(f->lines);
	for (i = 0; f->shown && i < f->syms.n; i++)
		if (f->shown[i] != f->syms.syms[i].name)
			free((char *)f->shown[i]);
	free(f->shown);
	if (f->cfi) {
		vmstack_cfi_free(f->cfi);
		free(f->cfi);
	}
	vmstack_symtab_free(&f->syms);
	if (f->debug_elf) {
		elf_end(f->debug_elf);
		close(f->debug_fd);
	}
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->loads);
	free(f->key);
	free(f);
}

Elf *vmstack_file_elf(const struct vmstack_file *f)
{
	return f->elf;
}

int vmstack_file_vaddr(const struct vmstack_file *f, uint64_t offset, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nloads; i++)
		if (offset >= f->loads[i].offset &&
		    offset < f->loads[i].offset + f->loads[i].filesz) {
			*vaddr = offset - f->loads[i].offset + f->loads[i].vaddr;
			return 0;
		}
	return -1;
}

int vmstack_file_offset(const struct vmstack_file *f, uint64_t vaddr, uint64_t *offset)
{
	size_t i;

	for (i = 0; i < f->nloads; i++)
		if (vaddr >= f->loads[i].vaddr &&
		    vaddr < f->loads[i].vaddr + f->loads[i].filesz) {
			*offset = vaddr - f->loads[i].vaddr + f->loads[i].offset;
			return 0;
		}
	return -1;
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
 * A stripped file's separate debug file (user/debuginfo.h), when the file
 * lacks a .symtab or DWARF, as a -dbg package installs it; opened with
 * libelf as the file is (the symbols' names point into it, so it stays
 * open). Its code sections are NOBITS, but .symtab and the DWARF are
 * real, at the same link-time addresses: the file's own load segments
 * still convert. NULL if none.
 */
static Elf *debug_elf(struct vmstack_file *f)
{
	Elf *debug;
	int fd;

	if (f->debug_tried || !f->elf || f->fd < 0)
		return f->debug_elf;
	f->debug_tried = 1;
	if (has_section(f->elf, SHT_SYMTAB, NULL) &&
	    has_section(f->elf, SHT_PROGBITS, ".debug_info"))
		return NULL;
	fd = vmstack_debuginfo_open(f->elf, f->path);
	if (fd < 0)
		return NULL;
	debug = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!debug || elf_kind(debug) != ELF_K_ELF) {
		elf_end(debug);
		close(fd);
		return NULL;
	}
	f->debug_fd = fd;
	return f->debug_elf = debug;
}

const struct vmstack_sym *vmstack_file_symbol(struct vmstack_file *f, uint64_t vaddr)
{
	Elf *debug;

	if (!f->syms_tried && f->elf) {
		f->syms_tried = 1;
		/* .symtab has everything .dynsym has; .dynsym only without one. */
		if (has_section(f->elf, SHT_SYMTAB, NULL))
			vmstack_symtab_add_elf(&f->syms, f->elf, SHT_SYMTAB);
		else if ((debug = debug_elf(f)) && has_section(debug, SHT_SYMTAB, NULL))
			vmstack_symtab_add_elf(&f->syms, debug, SHT_SYMTAB);
		else
			vmstack_symtab_add_elf(&f->syms, f->elf, SHT_DYNSYM);
		vmstack_symtab_finish(&f->syms);
	}
	return f->syms.loaded ? vmstack_symtab_find(&f->syms, vaddr) : NULL;
}

const char *vmstack_file_shown_name(struct vmstack_file *f, const struct vmstack_sym *sym)
{
	size_t i = (size_t)(sym - f->syms.syms), k = strcspn(sym->name, "@");
	const char *name = sym->name;
	char *cut = NULL, *d;

	if (!f->shown)
		f->shown = xcalloc(f->syms.n, sizeof(*f->shown));
	if (f->shown[i])
		return f->shown[i];
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
	f->shown[i] = name;
	return name;
}

const char *vmstack_file_build_id(struct vmstack_file *f)
{
	if (!f->build_id_tried && f->elf) {
		f->build_id_tried = 1;
		if (vmstack_elf_build_id(f->elf, f->build_id, sizeof(f->build_id)))
			f->build_id[0] = 0;
	}
	return f->build_id;
}

const struct vmstack_cfi_table *vmstack_file_cfi(struct vmstack_file *f)
{
	if (!f->cfi_tried && f->elf) {
		f->cfi_tried = 1;
		f->cfi = xcalloc(1, sizeof(*f->cfi));
		if (vmstack_cfi_build(f->elf, f->cfi)) {
			free(f->cfi);
			f->cfi = NULL;
		}
	}
	return f->cfi;
}

uint64_t vmstack_file_rows_key(const struct vmstack_file *f, uint64_t offset,
			       uint64_t len)
{
	char buf[4200];
	int n = snprintf(buf, sizeof(buf), "%s:%" PRIx64 ":%" PRIx64, f->key, offset, len);
	/* Over the file's key, the offset and the length (as much as buf holds). */
	uint64_t h = hash_bytes(buf, n < (int)sizeof(buf) ? (size_t)n : sizeof(buf), 0);

	return h ? h : 1;
}

static size_t line_slot(const struct vmstack_file *f, uint64_t vaddr)
{
	size_t j = hash_words(&vaddr, 1, 2) & (f->line_nslots - 1);

	while (f->line_cache[j].names && f->line_cache[j].vaddr != vaddr)
		j = (j + 1) & (f->line_nslots - 1);
	return j;
}

/* An empty slot for @vaddr, the table grown if need be. */
static struct line_entry *line_new(struct vmstack_file *f, uint64_t vaddr)
{
	struct line_entry *e, *old = f->line_cache;
	size_t i, nold = f->line_nslots;

	if (2 * (f->line_n + 1) > f->line_nslots) {
		f->line_nslots = nold ? 2 * nold : 1024;
		f->line_cache = xcalloc(f->line_nslots, sizeof(*f->line_cache));
		for (i = 0; i < nold; i++)
			if (old[i].names)
				f->line_cache[line_slot(f, old[i].vaddr)] = old[i];
		free(old);
	}
	e = &f->line_cache[line_slot(f, vaddr)];
	e->vaddr = vaddr;
	f->line_n++;
	return e;
}

/* @l's file and line in @n when DWARF has both (shown then). */
static void line_at(struct vmstack_name *n, const struct vmstack_line_frame *l)
{
	if (l && l->file && l->line > 0) {
		n->file = l->file;
		n->line = (uint32_t)l->line;
		n->flags |= VMSTACK_NAME_AT_LINE;
	}
}

/* Find the frames at @vaddr and keep them. */
static struct line_entry *line_fill(struct vmstack_file *f, uint64_t vaddr,
				    const char *function)
{
	struct vmstack_line_frame l[VMSTACK_MAX_INLINE];
	struct vmstack_name v[VMSTACK_MAX_INLINE];
	char *d[VMSTACK_MAX_INLINE] = { NULL };
	struct line_entry *e;
	int i, n = 0;

	if (!f->lines_tried) {
		f->lines_tried = 1;
		f->lines = vmstack_lines_open(f->elf);
		if (!f->lines && debug_elf(f))
			f->lines = vmstack_lines_open(f->debug_elf);
	}
	if (f->lines)
		n = vmstack_lines_at(f->lines, vaddr, l, VMSTACK_MAX_INLINE);
	/* The outermost function keeps its symbol's name, as without lines. */
	v[0] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE, .function = function,
				      .file = "" };
	line_at(&v[0], n ? &l[0] : NULL);
	for (i = 1; i < n; i++) {
		v[i] = (struct vmstack_name){ .kind = VMSTACK_FRAME_NATIVE,
			.function = l[i].func ? l[i].func : "[unknown]", .file = "",
			.flags = l[i].inlined ? VMSTACK_NAME_INLINED : 0 };
		/*
		 * A C++ or Rust function inlined is named as its symbol would
		 * be (DWARF's name is "loop" for tarantool::fiber::loop()).
		 */
		if (l[i].linkage && f->line_mangled)
			v[i].function = l[i].linkage;
		else if (l[i].linkage && (d[i] = vmstack_demangle(l[i].linkage)))
			v[i].function = d[i];
		line_at(&v[i], &l[i]);
	}
	n = n ? n : 1;
	e = line_new(f, vaddr);
	e->names = xmalloc((size_t)n * sizeof(*e->names));
	/*
	 * Copies: libdw's strings live as long as the file's DWARF, the
	 * function's name may be the caller's buffer.
	 */
	for (i = 0; i < n; i++) {
		e->names[i] = vmstack_name_dup(&v[i]);
		free(d[i]);
	}
	e->n = (size_t)n;
	return e;
}

size_t vmstack_file_lines(struct vmstack_file *f, uint64_t vaddr, const char *function,
			  bool demangle, struct vmstack_name *names, size_t max)
{
	const struct line_entry *e;
	size_t i;

	if (!max)
		return 0;
	/* One naming at a time: the frames kept are found again in the other. */
	if (f->line_mangled == demangle) {
		lines_drop(f);
		f->line_mangled = !demangle;
	}
	e = f->line_nslots ? &f->line_cache[line_slot(f, vaddr)] : NULL;
	if (!e || !e->names)
		e = line_fill(f, vaddr, function);
	for (i = 0; i < e->n && i < max; i++)
		names[i] = e->names[i];
	return i;
}
