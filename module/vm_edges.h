/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _VMSTACK_VM_EDGES_H
#define _VMSTACK_VM_EDGES_H

#include "walk.h"

bool vmstack_vm_edge(struct vmstack_walk *w, const struct vmstack_vm_desc4 *d,
		     const struct vmstack_user_regs *r, struct vmstack_user_regs *caller);

#endif
