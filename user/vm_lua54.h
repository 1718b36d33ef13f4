/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lua 5.4 (x86-64; Debian 12's lua5.4 and liblua5.4.so.0): detect its
 * interpreter loop in a mapping, describe its CallInfo frames to the
 * module, name its functions.
 */
#ifndef VMSTACK_VM_LUA54_H
#define VMSTACK_VM_LUA54_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

#include "maps.h"

/*
 * 0 and *d filled if @m maps a Lua 5.4 interpreter; -1 if not; -2 (and
 * @why set) if it is one this code cannot walk.
 */
int vmstack_lua54_describe(const struct vmstack_map *m,
			   struct vmstack_vm_desc *d, const char **why);
/* "SOURCE:LINEDEFINED" of the function with prototype @proto in @pid. */
int vmstack_lua54_name(int pid, uint64_t word, char *buf, size_t len);

#endif
