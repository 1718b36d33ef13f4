// SPDX-License-Identifier: GPL-2.0
/*
 * The generator links the recorder's code but not the table it writes
 * (layout_table.c): it reads every layout from DWARF, and a table that no
 * longer compiles can still be rewritten.
 */
#include "vm/cpython/cpython.h"

const struct cpython_layout_row cpython_layout_table[] = { { .version = NULL } };
const unsigned int cpython_layout_table_rows = 0;
