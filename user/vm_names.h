/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM frames' names as their namers gave them (user/frame.h), by VM word
 * and PC (0 unless the runtime names lines): a process's cache, filled
 * while the objects the words point to live, and what raw recordings
 * save.
 */
#ifndef VMSTACK_VM_NAMES_H
#define VMSTACK_VM_NAMES_H

#include <stdbool.h>
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
/* Keep a copy of @n for @ident at @pc; the first name given stays (a stand-in's goes). */
void vmstack_vm_names_put(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
			  const struct vmstack_name *n);
/*
 * Keep @n as a stand-in for @ident at @pc, whose namer failed just now:
 * the object may have been between lives (a PHP request's op_arrays are
 * freed and built again at the same place), so a later read may succeed
 * and its name replaces the stand-in.
 */
void vmstack_vm_names_put_stand_in(struct vmstack_vm_names *t, uint64_t ident, uint64_t pc,
				   const struct vmstack_name *n);
/*
 * Whether @ident at @pc wants its namer: it has no name yet, or only a
 * stand-in, last tried long enough ago (VM_NAME_RETRY_MS) and fewer than
 * VM_NAME_TRIES times.
 */
bool vmstack_vm_names_wanted(const struct vmstack_vm_names *t, uint64_t ident, uint64_t pc);
/* @fn for each name until it returns non-zero, which is returned. */
typedef int (*vmstack_vm_name_fn)(void *arg, uint64_t ident, uint64_t pc,
				  const struct vmstack_name *n);
int vmstack_vm_names_each(const struct vmstack_vm_names *t, vmstack_vm_name_fn fn,
			  void *arg);
void vmstack_vm_names_free(struct vmstack_vm_names *t);

#endif
