/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer of user/vm/cpython/layout_table.c: each reference build's
 * layout as the recorder reads it from that build's DWARF
 * (cpython_layout_dwarf), one row per minor version, as C source. The
 * tool (vmstack-pylayout-gen.c) and the unit test that keeps the
 * committed file in step with the builds share it.
 */
#ifndef VMSTACK_PYLAYOUT_GEN_H
#define VMSTACK_PYLAYOUT_GEN_H

#include <stddef.h>
#include <stdio.h>

/* The minor versions the table has a row for, and their pyenv builds. */
#define PYLAYOUT_BUILDS 4
extern const char *const pylayout_pyenv_versions[PYLAYOUT_BUILDS];	/* "3.9.18", ... */

/* The pyenv build of @version's libpython3.X.so.1.0 in @buf. */
void pylayout_pyenv_lib(char *buf, size_t len, const char *version);

/*
 * The table's C source for the libraries @libs (@n, in minor order) to
 * @out: 0, or -1 with @why (a file that is not a CPython build of a
 * minor the table has, or whose DWARF lacks a field).
 */
int pylayout_gen(FILE *out, const char *const *libs, unsigned int n, char *why, size_t len);

#endif
