/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check an ABI 4 VM descriptor passes before a session takes it
 * (vm_prog_check.c). It needs nothing but the uapi header, so the
 * recorder links the same code and reports a refusal before upload, with
 * the instruction it concerns.
 */
#ifndef _VMSTACK_VM_PROG_CHECK_H
#define _VMSTACK_VM_PROG_CHECK_H

#include <linux/vmstack.h>

/*
 * NULL if @d is well-formed, else a message naming the problem (a static
 * string). *@insn (if @insn is not NULL) is the index of the instruction
 * the message is about, or -1 when it is about another field.
 */
const char *vmstack_vm_desc4_check_insn(const struct vmstack_vm_desc4 *d, int *insn);

/* The same, without the index (the module's VM_ADD). */
const char *vmstack_vm_desc4_check(const struct vmstack_vm_desc4 *d);

#endif
