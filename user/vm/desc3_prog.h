/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtimes describe a VM in ABI 3's structured form (struct
 * vmstack_vm_desc: fields and flags, as the text format and libvmstack
 * spell them); the module takes ABI 4's program. This compiles one into
 * the other: a program that makes the reads ABI 3.6's walk made, in its
 * order, and shows the same frames.
 */
#ifndef VMSTACK_VM_DESC3_PROG_H
#define VMSTACK_VM_DESC3_PROG_H

#include <linux/vmstack.h>

#include "vm/desc3.h"

/*
 * Fill @out (zeroed first) from @d. NULL, or why not: a message from
 * ABI 3.6's descriptor check, or the assembler's.
 */
const char *vmstack_desc3_prog(const struct vmstack_vm_desc *d,
			       struct vmstack_vm_desc4 *out);

/* ABI 3.6's check of a structured descriptor: NULL, or what is wrong. */
const char *vmstack_desc3_check(const struct vmstack_vm_desc *d);

#endif
