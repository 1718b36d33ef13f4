/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _VMSTACK_VM_EPILOGUE_H
#define _VMSTACK_VM_EPILOGUE_H

#include "walk.h"

bool vmstack_vm_epilogue(struct vmstack_walk *w, const struct vmstack_user_regs *r,
			 struct vmstack_user_regs *caller);

#endif
