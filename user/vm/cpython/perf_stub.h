/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython's perf trampolines (-X perf, 3.12 and later) name each stub in
 * the perf map "py::FUNC:FILE" (Python/perf_trampoline.c). A stub calls
 * the eval loop for one Python function: where that activation's Python
 * frames are merged, the frame right above the stub is FUNC's own, and
 * the stub would show it twice (issue 28: -X perf's stacks as those
 * without it).
 */
#ifndef VMSTACK_VM_CPYTHON_PERF_STUB_H
#define VMSTACK_VM_CPYTHON_PERF_STUB_H

#include <stdbool.h>
#include <string.h>

static inline bool cpython_perf_stub_name(const char *name)
{
	return !strncmp(name, "py::", 4);
}

#endif
