/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Detection on an installed file rather than a process: the unit tests'
 * way to ask a runtime what it makes of a build on this machine.
 */
#ifndef VMSTACK_UNIT_DETECT_FILE_H
#define VMSTACK_UNIT_DETECT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "vm/runtime.h"

/*
 * What runtime @runtime says of @path mapped whole (256 MB) at @start,
 * pid 0 (a file, not running): the verdict, what it found in @f (zeroed
 * first), why not in @why (@len bytes, emptied first). A missing runtime
 * or file is a failed CHECK.
 */
enum vmstack_detect unit_detect_file(const char *runtime, const char *path, uint64_t start,
				     struct vmstack_vm_found *f, char *why, size_t len);

/*
 * A copy of @path at @out with the first @len bytes @old replaced by
 * @new; with @once, a CHECK that @old is there only once. @out, or NULL
 * (a failed CHECK) when @old is not found.
 */
const char *unit_patched_copy(const char *path, const void *old, const void *new, size_t len,
			      int once, const char *out);

/* @path's GNU build-id, as bytes in @out (@max at most): their count, or 0. */
size_t unit_build_id_bytes(const char *path, unsigned char *out, size_t max);

#endif
