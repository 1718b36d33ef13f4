/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk tests describe their fake VMs in ABI 3's structured form, as
 * the runtimes do; the walk takes ABI 4 programs. This translates them as
 * the recorder does (user/vm/desc3_prog.c) and checks each program as the
 * module does, so every fake stack tests the translation too.
 */
#ifndef VMSTACK_DESC4_OF_H
#define VMSTACK_DESC4_OF_H

#include "walk.h"
#include "vm/desc3_prog.h"

/*
 * @n descriptors (at most VMSTACK_VM_MAX) translated into a static array
 * that the next call reuses; a translation or check that fails is a
 * failed CHECK, and its descriptor runs a program that only exits EMPTY.
 */
const struct vmstack_vm_desc4 *desc4_of(const struct vmstack_vm_desc *d, unsigned int n);

#endif
