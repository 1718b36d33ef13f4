/* SPDX-License-Identifier: GPL-2.0 */
/* CPython's perf trampolines in a target, given unwind rules (py_tramp.c). */
#ifndef VMSTACK_RECORD_PY_TRAMP_H
#define VMSTACK_RECORD_PY_TRAMP_H

#include "maps.h"
#include "unwind/py_trampolines.h"

struct record_targets;
struct vmstack_target;

/* A new executable mapping @m of @t: the stub, if its file is CPython's with one. */
void record_py_tramp_map(struct record_targets *ts, struct vmstack_target *t,
			 const struct vmstack_map *m);
/* @t's arenas of stubs that appeared since, given their rules. */
void record_py_tramp_refresh(struct record_targets *ts, struct vmstack_target *t);

#endif
