/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-site names: what a caller frame's call names the VM frame it
 * calls (Lua's functions have no name but the one their caller's code
 * gives them), by both frames' VM words and PCs. A process's cache, like
 * the VM names (vm_names.h), filled while the code lives; raw recordings
 * save it. An empty name: the runtime said none can be known there.
 */
#ifndef VMSTACK_VM_SITES_H
#define VMSTACK_VM_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "hash_table.h"

/* Callee's word and PC, then its caller's. */
struct vmstack_vm_site {
	uint64_t callee, callee_pc, caller, caller_pc;
};

struct vmstack_vm_sites {
	struct hash_table table;	/* of struct vm_site; table.n: how many */
};

/* The name kept for @s, or NULL if none is. */
const char *vmstack_vm_sites_get(const struct vmstack_vm_sites *t,
				 const struct vmstack_vm_site *s);
/* Keep a copy of @name for @s; the first one given stays. */
void vmstack_vm_sites_put(struct vmstack_vm_sites *t, const struct vmstack_vm_site *s,
			  const char *name);
/* @fn for each until it returns non-zero, which is returned. */
typedef int (*vmstack_vm_site_fn)(void *arg, const struct vmstack_vm_site *s,
				  const char *name);
int vmstack_vm_sites_each(const struct vmstack_vm_sites *t, vmstack_vm_site_fn fn,
			  void *arg);
void vmstack_vm_sites_free(struct vmstack_vm_sites *t);

#endif
