// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_types.h"

struct vmstack_dwarf_types {
	Dwarf *dw;
	char *cu_filter;
};

struct vmstack_dwarf_types *vmstack_dwarf_types_open(Elf *elf, const char *cu_filter)
{
	struct vmstack_dwarf_types *t;
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	if (!dw)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || (cu_filter && !(t->cu_filter = strdup(cu_filter)))) {
		free(t);
		dwarf_end(dw);
		return NULL;
	}
	t->dw = dw;
	return t;
}

void vmstack_dwarf_types_close(struct vmstack_dwarf_types *t)
{
	if (!t)
		return;
	dwarf_end(t->dw);
	free(t->cu_filter);
	free(t);
}

/* A type's definition, through typedefs and qualifiers. */
static int resolve(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	int n;

	for (n = 0; n < 16; n++) {
		switch (dwarf_tag(die)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
			if (!dwarf_attr_integrate(die, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, die))
				return -1;
			continue;
		default:
			return dwarf_hasattr(die, DW_AT_declaration) ? -1 : 0;
		}
	}
	return -1;
}

/*
 * The first top-level entry, in a unit that passes the filter, that @match
 * accepts (and may move to what it stands for); 0 or -1.
 */
static int find_die(struct vmstack_dwarf_types *t, bool (*match)(Dwarf_Die *, const char *),
		    const char *key, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(t->dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die;
		const char *cuname;

		off += hsize;
		if (!dwarf_offdie(t->dw, off, &cu))
			goto next;
		cuname = dwarf_diename(&cu);
		if (t->cu_filter && (!cuname || !strstr(cuname, t->cu_filter)))
			goto next;
		if (dwarf_child(&cu, &die))
			goto next;
		do {
			*out = die;
			if (match(out, key))
				return 0;
		} while (!dwarf_siblingof(&die, &die));
next:
		off = next;
	}
	return -1;
}

/* A struct, union, enum or typedef of one named @name, made its definition. */
static bool is_type_named(Dwarf_Die *die, const char *name)
{
	const char *n;

	switch (dwarf_tag(die)) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_typedef:
		n = dwarf_diename(die);
		return n && !strcmp(n, name) && !resolve(die);
	default:
		return false;
	}
}

static int find_type(struct vmstack_dwarf_types *t, const char *name, Dwarf_Die *out)
{
	return find_die(t, is_type_named, name, out);
}

long vmstack_dwarf_size(struct vmstack_dwarf_types *t, const char *type)
{
	Dwarf_Die die;
	int size;

	if (find_type(t, type, &die))
		return -1;
	size = dwarf_bytesize(&die);
	return size < 0 ? -1 : size;
}

long vmstack_dwarf_offset(struct vmstack_dwarf_types *t, const char *type,
			  const char *member)
{
	Dwarf_Die die, m;

	if (find_type(t, type, &die) || dwarf_child(&die, &m))
		return -1;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off;
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (!n || strcmp(n, member))
			continue;
		/* DWARF 4 and later: a constant; older ones did not reach here. */
		if (!dwarf_attr_integrate(&m, DW_AT_data_member_location, &a))
			return dwarf_tag(&die) == DW_TAG_union_type ? 0 : -1;
		if (dwarf_formudata(&a, &off))
			return -1;
		return (long)off;
	} while (!dwarf_siblingof(&m, &m));
	return -1;
}

/* An enum with an enumerator named @member. */
static bool is_enum_with(Dwarf_Die *die, const char *member)
{
	Dwarf_Die e;

	if (dwarf_tag(die) != DW_TAG_enumeration_type || dwarf_child(die, &e))
		return false;
	do {
		const char *n = dwarf_diename(&e);

		if (dwarf_tag(&e) == DW_TAG_enumerator && n && !strcmp(n, member))
			return true;
	} while (!dwarf_siblingof(&e, &e));
	return false;
}

/*
 * Whether enum @die's values are signed.  A DW_FORM_data1 128 is -128 to
 * dwarf_formsdata(): the enum's underlying type decides, and GCC writes it.
 */
static bool enum_is_signed(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;
	Dwarf_Die base;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &base) ||
	    resolve(&base) || !dwarf_attr(&base, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc))
		return true;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

int vmstack_dwarf_enum_of(struct vmstack_dwarf_types *t, const char *member,
			  void (*fn)(void *arg, const char *name, int64_t value), void *arg)
{
	Dwarf_Die die, e;
	bool is_signed;
	int n = 0;

	if (find_die(t, is_enum_with, member, &die))
		return -1;
	is_signed = enum_is_signed(&die);
	if (dwarf_child(&die, &e))
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		Dwarf_Word u;
		const char *name;

		if (dwarf_tag(&e) != DW_TAG_enumerator)
			continue;
		name = dwarf_diename(&e);
		if (!name || !dwarf_attr(&e, DW_AT_const_value, &a))
			continue;
		if (is_signed || dwarf_whatform(&a) == DW_FORM_sdata) {
			if (dwarf_formsdata(&a, &v))
				continue;
		} else {
			if (dwarf_formudata(&a, &u) || u > INT64_MAX)
				continue;
			v = (Dwarf_Sword)u;
		}
		fn(arg, name, v);
		n++;
	} while (!dwarf_siblingof(&e, &e));
	return n;
}

int32_t vmstack_dwarf_q_off(struct vmstack_dwarf_query *q, const char *type,
			    const char *member)
{
	long v = vmstack_dwarf_offset(q->t, type, member);

	if (v < 0 && !q->missing)
		q->missing = member;
	return (int32_t)v;
}

int32_t vmstack_dwarf_q_size(struct vmstack_dwarf_query *q, const char *type)
{
	long v = vmstack_dwarf_size(q->t, type);

	if (v <= 0 && !q->missing)
		q->missing = type;
	return (int32_t)v;
}
