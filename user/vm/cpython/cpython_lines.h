/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source lines of CPython 3.11+ frames: the code object's location table
 * (co_linetable, Objects/locations.md in CPython 3.11) read as CPython's
 * own PyCode_Addr2Line reads it; and 3.10's and 3.9's line tables.
 */
#ifndef VMSTACK_VM_CPYTHON_LINES_H
#define VMSTACK_VM_CPYTHON_LINES_H

#include <stddef.h>

/*
 * The line of the code unit at @index (in 2-byte code units, CACHE entries
 * counted, as frame.f_lasti // 2) of a code object whose co_linetable is
 * @table (@len bytes) and co_firstlineno @firstlineno. @firstlineno for a
 * negative @index (a frame that has not started); -1 when the entry that
 * covers @index has no location (or a line below 0), when @index lies past
 * the table, or when the table up to that entry is truncated or malformed.
 * The table may be copied from another process: no byte at or past @len
 * is read.
 */
int vmstack_py311_line(const unsigned char *table, size_t len, int firstlineno, long index);

/*
 * The line of bytecode byte @offset (f_lasti * 2) of a CPython 3.10 code
 * object whose co_linetable is @table (@len bytes): @firstlineno for a
 * negative @offset, -1 for bytes without a line or past the table.
 */
int vmstack_py310_line(const unsigned char *table, size_t len, int firstlineno, long offset);

/*
 * The line of bytecode byte @offset (f_lasti) of a CPython 3.9 code object
 * whose co_lnotab is @table (@len bytes): @firstlineno for a negative
 * @offset; -1 for a line below 0. Offsets past the table have its last line.
 */
int vmstack_py39_line(const unsigned char *table, size_t len, int firstlineno, long offset);

#endif
