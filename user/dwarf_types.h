/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts a file's DWARF gives about its types (libdw): the size of a
 * struct, the offset of a member, the values of an enum. What a VM
 * runtime needs to describe a build that carries its own debug info.
 */
#ifndef VMSTACK_DWARF_TYPES_H
#define VMSTACK_DWARF_TYPES_H

#include <gelf.h>
#include <stdint.h>

struct vmstack_dwarf_types;

/*
 * The types of @elf's compile units whose name contains @cu_filter (all
 * if NULL): a VM's own files in a large program. NULL: no DWARF.
 */
struct vmstack_dwarf_types *vmstack_dwarf_types_open(Elf *elf, const char *cu_filter);
void vmstack_dwarf_types_close(struct vmstack_dwarf_types *t);
/* The byte size of struct, union or typedef @type, or -1. */
long vmstack_dwarf_size(struct vmstack_dwarf_types *t, const char *type);
/* The byte offset of @member (a direct member) in struct @type, or -1. */
long vmstack_dwarf_offset(struct vmstack_dwarf_types *t, const char *type,
			  const char *member);
/*
 * Call @fn for each enumerator of the enum that has an enumerator named
 * @member; returns the number of enumerators, or -1 if there is none.
 * Found by an enumerator, not a type name: "typedef enum { ... } Name;" is
 * anonymous in DWARF, and GCC drops the typedef when no declaration uses
 * it (LuaJIT's FastFunc in Tarantool's build).
 */
/*
 * Lookups that keep the first name not found: a layout is filled in one
 * pass, and a build missing a name is refused with that name.
 */
struct vmstack_dwarf_query {
	struct vmstack_dwarf_types *t;
	const char *missing;	/* the first member or type not found */
};
/* vmstack_dwarf_offset(), or -1 with q->missing set if unset. */
int32_t vmstack_dwarf_q_off(struct vmstack_dwarf_query *q, const char *type,
			    const char *member);
/* vmstack_dwarf_size(); a type of no size is not found (-1 or 0 returned). */
int32_t vmstack_dwarf_q_size(struct vmstack_dwarf_query *q, const char *type);

int vmstack_dwarf_enum_of(struct vmstack_dwarf_types *t, const char *member,
			  void (*fn)(void *arg, const char *name, int64_t value), void *arg);

#endif
