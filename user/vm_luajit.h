/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LuaJIT 2.1 (GC64, x86-64; Debian 12's build): detect its interpreter in
 * a mapping, describe its frames to the module, name its frames.
 */
#ifndef VMSTACK_VM_LUAJIT_H
#define VMSTACK_VM_LUAJIT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

#include "maps.h"

/* 0 and *d filled if @m maps a LuaJIT interpreter. */
int vmstack_luajit_describe(const struct vmstack_map *m,
			    struct vmstack_vm_desc *d);
/*
 * Name of the Lua function whose prototype is @proto, as
 * "CHUNK:FIRSTLINE", read from process @pid. -1 if unreadable.
 */
int vmstack_luajit_name(int pid, uint64_t proto, char *buf, size_t len);

#endif
