// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"

int vmstack_elf_build_id(Elf *elf, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, i;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) ||
			    2 * nh.n_descsz + 1 > len)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", d[i]);
			return 0;
		}
	}
	return -1;
}

/* The first defined symbol @match accepts, in .symtab or .dynsym. */
static int find_symbol(Elf *elf, int (*match)(const char *s, void *arg), void *arg,
		       GElf_Sym *sym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t k, n;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			const char *s;

			if (!gelf_getsym(data, (int)k, sym) || sym->st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym->st_name);
			if (s && match(s, arg))
				return 0;
		}
	}
	return -1;
}

static int same(const char *s, void *name)
{
	return !strcmp(s, name);
}

int vmstack_elf_symbol(Elf *elf, const char *name, GElf_Sym *sym)
{
	return find_symbol(elf, same, (void *)name, sym);
}

struct prefixed {
	const char *prefix;
	char *rest;
	size_t len;
};

static int starts(const char *s, void *arg)
{
	struct prefixed *p = arg;
	size_t n = strlen(p->prefix);

	if (strncmp(s, p->prefix, n))
		return 0;
	snprintf(p->rest, p->len, "%s", s + n);
	return 1;
}

int vmstack_elf_symbol_prefix(Elf *elf, const char *prefix, char *rest, size_t len)
{
	struct prefixed p = { prefix, rest, len };
	GElf_Sym sym;

	return find_symbol(elf, starts, &p, &sym);
}

int vmstack_elf_read(Elf *elf, uint64_t vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (vaddr - sh.sh_addr) ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
		    data->d_size < sh.sh_size)
			continue;
		memcpy(buf, (const char *)data->d_buf + (vaddr - sh.sh_addr), len);
		return 0;
	}
	return -1;
}
