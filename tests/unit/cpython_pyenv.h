/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pyenv builds of CPython 3.9, 3.10, 3.12 and 3.13 (and Debian's 3.14 and 3.15) in the unit tests
 * (test_cpython_versions.c, test_cpython_table.c): where they are, and a
 * live interpreter of one walked by the recorder's program (cpython_live.c).
 */
#ifndef VMSTACK_UNIT_CPYTHON_PYENV_H
#define VMSTACK_UNIT_CPYTHON_PYENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct version {
	const char *dir, *minor;	/* "3.12.1", "12" */
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault in the file */
	const char *build_name;
	int32_t rt_interp_head, is_threads_head, ts_native_tid, fr_owner, co_code;
	int32_t str_ascii_data, str_compact_data;
	int32_t shim_sp;	/* objdump -d: movb $0x3,DISP(%rsp) in the prologue, DISP - 70 */
	/*
	 * A build that is not pyenv's: the file holding the interpreter,
	 * run as the python; its shim's place is the one detection finds,
	 * which must be proved (sp- or bp-relative).
	 */
	const char *path;
};

/* 3.9.18, 3.10.13, 3.12.1, 3.13.0 (test_cpython_versions.c) */
#define CPYTHON_PYENV_VERSIONS 4
extern const struct version cpython_pyenv_versions[CPYTHON_PYENV_VERSIONS];

/* 3.9 and 3.10: one PyFrameObject per eval activation. */
bool cpython_frame_objects(const struct version *v);
/* @v's file @what ("bin/python", "lib/libpython") in @buf. */
void cpython_pyenv_path(char *buf, size_t len, const struct version *v, const char *what);
/*
 * As root, @v's python running a known script (@threaded: 3.9 and 3.10,
 * from a second thread), detected live and its frames walked by the
 * detected program over its memory and named: CHECKs. @libdir: a folder
 * whose libpython3.X.so.1.0 it runs with instead of its own (NULL: its
 * own); @want_name: the build's name detection must give, or NULL.
 */
void cpython_live_version(const struct version *v, bool threaded, const char *libdir,
			  const char *want_name);

#endif
