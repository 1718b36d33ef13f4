/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interpreters recognised but not walked (unwalked.c): named in a message,
 * profiled with native stacks only.
 */
#ifndef VMSTACK_VM_UNWALKED_H
#define VMSTACK_VM_UNWALKED_H

#include <stddef.h>

#include "maps.h"

/*
 * Does the file of mapping @m hold an interpreter vmstack recognises but
 * does not walk? Its row (< 32), with @what naming it and its version
 * ("Lua 5.1.5", "Ruby 3.1.2"); or -1.
 */
int vmstack_vm_unwalked(const struct vmstack_map *m, char *what, size_t len);

#endif
