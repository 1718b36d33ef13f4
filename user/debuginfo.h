/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Separate debug info: the file a distribution's -dbg package installs
 * for a stripped ELF file (/usr/lib/debug), found as gdb finds it.
 */
#ifndef VMSTACK_DEBUGINFO_H
#define VMSTACK_DEBUGINFO_H

#include <gelf.h>

/*
 * Open the debug file of @elf, mapped at @path (its path in the target's
 * file system): by build-id, /usr/lib/debug/.build-id/xx/rest.debug, then
 * by .gnu_debuglink (its CRC checked) in the file's directory, its .debug/
 * and /usr/lib/debug/DIR/. Returns a read-only fd, or -1.
 */
int vmstack_debuginfo_open(Elf *elf, const char *path);

#endif
