/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython's perf trampolines (3.12 and later, -X perf or
 * PYTHONPERFSUPPORT=1): every Python call runs through a copy of a small
 * stub that the interpreter writes, thousands to an arena of anonymous
 * memory, and names in /tmp/perf-PID.map. Anonymous memory has no unwind
 * rules, and the stub of the 3.12 and 3.13 builds keeps no frame pointer,
 * so every stack ended at the first one. The stub is libpython's own code
 * (_Py_trampoline_func_start to _end): its rules are computed from its
 * instructions and given to the module for each arena.
 */
#ifndef VMSTACK_UNWIND_PY_TRAMPOLINES_H
#define VMSTACK_UNWIND_PY_TRAMPOLINES_H

#include <gelf.h>
#include <linux/vmstack.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/upload.h"

/* Rows of one stub, from its first byte; the stub's bytes. */
#define PY_TRAMP_MAX_BYTES 64
#define PY_TRAMP_MAX_ARENAS 64

struct vmstack_py_tramp {
	unsigned char code[PY_TRAMP_MAX_BYTES];
	size_t size;
	struct vmstack_uw_row rows[PY_TRAMP_MAX_BYTES];
	size_t nrows;
	uint64_t arenas[PY_TRAMP_MAX_ARENAS];	/* starts of those given rules */
	size_t narenas;
};

enum vmstack_py_tramp_found {
	PY_TRAMP_NONE,		/* the file has no stub */
	PY_TRAMP_KNOWN,		/* its rules computed */
	PY_TRAMP_UNKNOWN,	/* a stub of instructions not understood */
};

/* The stub of the ELF file @elf, if it has one, and its rules. */
enum vmstack_py_tramp_found vmstack_py_tramp_read(Elf *elf, struct vmstack_py_tramp *t);
/*
 * The rules of one stub from its code (@t->code, @t->size) into @t->rows.
 * 0, or -1 for an instruction not understood.
 */
int vmstack_py_tramp_rules(struct vmstack_py_tramp *t);
/*
 * The rows of an arena @len bytes long filled with copies of the stub,
 * one every @stride bytes (3.12.1: its size, 11; 3.13.0: 16); the caller
 * frees *rows. Returns how many.
 */
size_t vmstack_py_tramp_arena_rows(const struct vmstack_py_tramp *t, uint64_t len,
				   size_t stride, struct vmstack_uw_row **rows);
/*
 * The stride of the copies in the first bytes of an arena (@buf, @len of
 * them): the offset of the second copy, the first being at 0; 0 if @buf
 * does not start with two copies.
 */
size_t vmstack_py_tramp_stride(const struct vmstack_py_tramp *t, const unsigned char *buf,
			       size_t len);
/*
 * Process @pid's arenas not yet given rules (anonymous executable memory
 * that holds copies of the stub at its start and end), given them, for
 * target @target_pid of session @fd. Returns how many were new.
 */
int vmstack_py_tramp_upload(struct vmstack_py_tramp *t, int pid, struct vmstack_nl *nl, int fd,
			    uint32_t target_pid, struct vmstack_unwind_stats *st);

#endif
