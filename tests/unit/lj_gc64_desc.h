/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI 3 descriptor of a LuaJIT 2.1 GC64 interpreter (the offsets
 * user/vm/luajit/luajit.c and luajit_builds.c give), for the tests that lay out
 * fake LuaJIT stacks: test_walk_checks.c (the walker's frame checks) and
 * test_desc3_steps.c (a translated program's cost per frame).
 */
#ifndef VMSTACK_UNIT_LJ_GC64_DESC_H
#define VMSTACK_UNIT_LJ_GC64_DESC_H

#include <stdint.h>

#include "vm/desc3.h"

/*
 * What every LuaJIT 2.1 interpreter's descriptor says alike, GC64 or not
 * (test_walk_jit.c's 32-bit-reference build): its state found from the
 * activation record, the lua_State's type, the frame links and slots, the
 * bytecode's operand, a C function's ffid, the C frame's size. The rest of
 * @d is left as it is.
 */
void lj_desc_common(struct vmstack_vm_desc *d);
/* The interpreter's code at [@code_start, @code_end); up to VMSTACK_VM_MAX_FRAMES frames. */
struct vmstack_vm_desc lj_gc64_desc(uint64_t code_start, uint64_t code_end);

#endif
