/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared libraries a program's loader will map, found before it runs:
 * the recorder reads their unwind rules before exec, so that once the
 * loader maps them only the upload is left to do, not the reading.
 */
#ifndef VMSTACK_NEEDED_H
#define VMSTACK_NEEDED_H

#include <stddef.h>

/*
 * The DT_NEEDED closure of @exe, each library looked up by name in the
 * colon-separated directories @dirs (DT_RPATH/DT_RUNPATH are not read),
 * breadth first, as canonical paths. Fills at most @max entries of @out
 * (malloc'd strings) and returns how many; libraries not found are left out.
 */
size_t vmstack_needed(const char *exe, const char *dirs, char **out, size_t max);

#endif
