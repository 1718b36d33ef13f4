/* SPDX-License-Identifier: GPL-2.0 */
/* What the unit tests check of LuaJIT builds beyond the runtime's table entry. */
#ifndef VMSTACK_VM_LUAJIT_H
#define VMSTACK_VM_LUAJIT_H

/* The name of builtin @ffid in build @build (vmstack_vm_found.build), or NULL. */
const char *vmstack_luajit_ffid_name(const void *build, unsigned int ffid);

#endif
