// SPDX-License-Identifier: GPL-2.0
/*
 * A target running CPython with its perf trampolines on (-X perf,
 * PYTHONPERFSUPPORT=1): the stub found in the interpreter's file as it is
 * mapped, then each arena of copies given unwind rules as it appears
 * (user/unwind/py_trampolines.h). Without them every stack of such a
 * process ended at its innermost Python call.
 */
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "py_tramp.h"
#include "session.h"
#include "file.h"
#include "targets.h"
#include "util.h"

void record_py_tramp_map(struct record_targets *ts, struct vmstack_target *t,
			 const struct vmstack_map *m)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	struct vmstack_py_tramp found;

	if (t->py_tramp || !ts->o->cfi || !elf)
		return;
	switch (vmstack_py_tramp_read(elf, &found)) {
	case PY_TRAMP_NONE:
		return;
	case PY_TRAMP_UNKNOWN:
		fprintf(stderr, TOOL ": %s (%d): CPython's perf trampolines in %s are code vmstack does not know: with -X perf, its stacks end at the innermost Python call\n",
			t->comm, t->pid, m->path);
		return;
	case PY_TRAMP_KNOWN:
		t->py_tramp = xmalloc(sizeof(*t->py_tramp));
		*t->py_tramp = found;
		return;
	}
}

void record_py_tramp_refresh(struct record_targets *ts, struct vmstack_target *t)
{
	if (!t->py_tramp || !t->described || t->pid <= 0)
		return;
	vmstack_py_tramp_upload(t->py_tramp, t->pid, ts->session->nl, ts->session->started.fd,
				record_module_pid(ts, t), &ts->uw);
}
