/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts read from an ELF file (libelf) that identify what it is: its
 * build-id, a symbol, bytes at a link-time address.
 */
#ifndef VMSTACK_ELF_FACTS_H
#define VMSTACK_ELF_FACTS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* The GNU build-id as lower-case hex in @buf; 0, or -1 if none. */
int vmstack_elf_build_id(Elf *elf, char *buf, size_t len);
/* Symbol @name from .symtab or .dynsym (defined ones only); 0 or -1. */
int vmstack_elf_symbol(Elf *elf, const char *name, GElf_Sym *sym);
/*
 * The rest of the name of a defined symbol that starts with @prefix
 * ("luaJIT_version_" gives "2_1_0_beta3"), in @rest; 0 or -1.
 */
int vmstack_elf_symbol_prefix(Elf *elf, const char *prefix, char *rest, size_t len);
/* @len bytes of the file's contents at link-time address @vaddr; 0 or -1. */
int vmstack_elf_read(Elf *elf, uint64_t vaddr, void *buf, size_t len);

#endif
