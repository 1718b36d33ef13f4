/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM frames' names as their namers gave them (user/frame.h), by VM word
 * and PC (0 unless the runtime names lines): a process's cache, filled
 * while the objects the words point to live, and what raw recordings
 * save.
 */
#ifndef VMSTACK_VM_NAMES_H
#define VMSTACK_VM_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "hash_table.h"

struct vmstack_vm_names {
	struct hash_table table;	/* of struct vm_name; table.n: how many */
};

/* The name of @ident at @pc, or NULL. */
const struct vmstack_name *vmstack_vm_names_get(const struct vmstack_vm_names *t,
						uint64_t ident, uint64_t pc);
/* Keep a copy of @n for @ident at @pc; the first name given stays. */
void vmstack_vm_names_put(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
			  const struct vmstack_name *n);
/* @fn for each name until it returns non-zero, which is returned. */
typedef int (*vmstack_vm_name_fn)(void *arg, uint64_t ident, uint64_t pc,
				  const struct vmstack_name *n);
int vmstack_vm_names_each(const struct vmstack_vm_names *t, vmstack_vm_name_fn fn,
			  void *arg);
void vmstack_vm_names_free(struct vmstack_vm_names *t);

#endif
