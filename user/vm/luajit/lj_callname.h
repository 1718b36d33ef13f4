/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LuaJIT's names of called functions (lj_callname.c): what a caller's call
 * instruction calls, as LuaJIT's debug.getinfo(f, "n") names it.
 */
#ifndef VMSTACK_VM_LUAJIT_LJ_CALLNAME_H
#define VMSTACK_VM_LUAJIT_LJ_CALLNAME_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

struct luajit_layout;

/*
 * The name of the function prototype @pt's call before return PC @pc
 * calls, in @out: 0, or -1 when LuaJIT gives none there or memory does not
 * read.
 */
int vmstack_luajit_callee_name(const struct luajit_layout *lj, int pid, uint64_t pt,
			       uint64_t pc, char *out, size_t len);

/* LuaJIT's site_namer (vm/runtime.h): @build a struct luajit_layout. */
int vmstack_luajit_site_name(const void *build, int pid, const struct vmstack_frame *callee,
			     const struct vmstack_frame *caller, char *out, size_t len);

/* Operand A's modes the scan knows, by opcode (for the tests: lj_bc_mode & 7 of a build). */
const uint8_t *vmstack_luajit_a_modes(size_t *n);
/* The metamethod each opcode calls, 1 + LuaJIT's MM number, 0 for none (for the tests too). */
const uint8_t *vmstack_luajit_op_mms(size_t *n);

#endif
