/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A symbol table: the functions of an ELF file (user/file.h reads them),
 * of the kernel (/proc/kallsyms, one table for every process) or of a
 * JIT's /tmp/perf-PID.map, sorted by address, one name an address.
 */
#ifndef VMSTACK_SYMTAB_H
#define VMSTACK_SYMTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct vmstack_sym {
	uint64_t addr, size;
	const char *name;
	unsigned char rank;	/* of aliases, the lowest is kept: global, weak, local */
};

struct vmstack_symtab {
	struct vmstack_sym *syms;
	size_t n, cap;
	char *strings;		/* owns the names not in an ELF image */
	size_t strings_len, strings_cap;
	int loaded;		/* 0: nothing read; names will be offsets */
};

/* The defined functions of @elf's table of section type @type (names point into @elf). */
void vmstack_symtab_add_elf(struct vmstack_symtab *t, Elf *elf, Elf64_Word type);
/* Lines "ADDR TYPE NAME [MODULE]"; text symbols only. 0, or -1. */
int vmstack_symtab_load_kallsyms(struct vmstack_symtab *t, const char *path);
/* Lines "START SIZE NAME" (hex), as JITs write /tmp/perf-PID.map. 0, or -1. */
int vmstack_symtab_load_perf_map(struct vmstack_symtab *t, const char *path);
/* Sort after adding; done by the loaders above. */
void vmstack_symtab_finish(struct vmstack_symtab *t);
const struct vmstack_sym *vmstack_symtab_find(const struct vmstack_symtab *t,
					      uint64_t addr);
void vmstack_symtab_free(struct vmstack_symtab *t);

/*
 * The kernel's name for @addr (read once for every process), written to
 * @buf. @ret: a return address, so the call is the instruction before it.
 */
const char *vmstack_kernel_symbol(uint64_t addr, int ret, char *buf, size_t len);

#endif
