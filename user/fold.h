/* SPDX-License-Identifier: GPL-2.0 */
/* Raw stacks to named, collapsed stacks: the symbols → output step. */
#ifndef VMSTACK_FOLD_H
#define VMSTACK_FOLD_H

#include <stdio.h>

#include "stacks.h"
#include "symbols.h"

/*
 * Write @st as collapsed stacks: root @comm (or COMM/TID per thread), user
 * frames outermost first, then kernel frames marked _[k].
 */
int vmstack_fold_write(const struct vmstack_stacks *st,
		       struct vmstack_symbolizer *sym, const char *comm,
		       int per_thread, FILE *out);

#endif
