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
 * Name of a VM frame's tagged word, read from process @pid: a Lua
 * function (its prototype) as "CHUNK:FIRSTLINE", a builtin by its library
 * name ("pcall", "string.find"), a trace as "TRACE_N CHUNK:LINE" (where it
 * starts). -1 if unreadable.
 */
int vmstack_luajit_name(int pid, uint64_t word, char *buf, size_t len);
/* The library name of builtin @ffid in this build, or NULL. */
const char *vmstack_luajit_ffid_name(unsigned int ffid);

#endif
