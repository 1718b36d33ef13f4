// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"
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

void vmstack_symtab_add_elf(struct vmstack_symtab *t, Elf *elf, Elf64_Word type)
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

void vmstack_symtab_free(struct vmstack_symtab *t)
{
	free(t->syms);
	free(t->strings);
	memset(t, 0, sizeof(*t));
}

/* The kernel's symbols: one table for every process. */
static struct vmstack_symtab kernel_tab;
static int kernel_tried;

const char *vmstack_kernel_symbol(uint64_t addr, int ret, char *buf, size_t len)
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

