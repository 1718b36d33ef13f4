// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.9 and 3.10 on x86-64: every Python call recurses in C, so each
 * native activation of _PyEval_EvalFrameDefault runs exactly one
 * PyFrameObject, in the order of the thread's tstate->frame ->f_back chain
 * (the eval function sets tstate->frame to its frame on entry and back to
 * f_back on exit: Python/ceval.c at v3.9.18 and v3.10.13). The program's
 * first run in a sample finds the thread's state and shows tstate->frame;
 * each run shows one frame and leaves its f_back in r8 for the next
 * activation outwards. Only in the eval function's first and last
 * instructions, before and after it links its frame, does an activation
 * show its caller's frame (and the outermost none: EMPTY). The two
 * versions differ, for the walk, only in offsets (the build's DWARF,
 * layout_dwarf.c); f_lasti's unit (3.9 bytes, 3.10 code units) and the
 * line table (3.9 co_lnotab, 3.10 co_linetable) matter to the namer only.
 *
 * Neither has Py_Version: the version is what Py_GetVersion formats,
 * PY_VERSION, the first string argument it passes to PyOS_snprintf (in
 * rcx, "lea disp32(%rip),%rcx" in its code). A build without DWARF is
 * named and profiled native-only.
 *
 * The thread state is the one whose thread_id (pthread_self(), which
 * glibc makes the thread pointer: the fs base the module passes in r6) is
 * the sampled thread's: neither version keeps a native thread id.
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/cpython/cpython.h"
#include "vm/prog.h"

int cpython_version_string(Elf *elf, uint64_t *hex)
{
	unsigned char code[96];
	char ver[16];
	GElf_Sym sym;
	unsigned int minor = 0, micro = 0;
	size_t i, n;
	int32_t disp;
	int used = 0;

	if (vmstack_elf_symbol(elf, "Py_GetVersion", &sym) || !sym.st_size)
		return 0;
	n = sym.st_size < sizeof(code) ? sym.st_size : sizeof(code);
	if (vmstack_elf_read(elf, sym.st_value, code, n))
		return 0;
	/* lea disp32(%rip),%rcx: 48 8d 0d disp32 */
	for (i = 0; i + 7 <= n; i++) {
		if (code[i] != 0x48 || code[i + 1] != 0x8d || code[i + 2] != 0x0d)
			continue;
		memcpy(&disp, code + i + 3, 4);
		memset(ver, 0, sizeof(ver));
		if (vmstack_elf_read(elf, sym.st_value + i + 7 + (int64_t)disp, ver,
				     sizeof(ver) - 1))
			return 0;
		if (sscanf(ver, "3.%u.%u%n", &minor, &micro, &used) != 2 || ver[used] ||
		    minor > 255 || micro > 255)
			return 0;
		*hex = 0x030000f0 | (uint64_t)minor << 16 | (uint64_t)micro << 8;
		return 1;
	}
	return 0;
}

static void ld64(struct vm_prog *p, int dst, int src, int32_t o)
{
	vm_prog_ld(p, 8, 0, dst, src, o, VM_NO_LABEL);
}

/*
 * The frame's PC is f_lasti + 1: f_lasti is -1 before the frame starts,
 * and a PC of 0 means "unknown" (the namer gives the first line for both);
 * its unit is the version's, which the namer knows.
 */
const char *cpython_frame_object_prog(const struct cpython_layout *L,
				      const struct cpython_shim_addrs *a,
				      struct vmstack_vm_desc4 *d)
{
	static struct vm_prog p;
	vm_label cont, empty, bad, nostate;

	vm_prog_init(&p);
	cont = vm_prog_label(&p), empty = vm_prog_label(&p);
	bad = vm_prog_label(&p), nostate = vm_prog_label(&p);
	vm_prog_jmp_k(&p, VMSTACK_VM4_JNE_K, 10, 0, cont);
	cpython_prog_find_thread(&p, L, a->runtime, L->ts_thread_id, 6, nostate);
	ld64(&p, 8, 9, L->ts_frame);
	/* One frame per activation. */
	vm_prog_bind(&p, cont);
	vm_prog_jmp_k(&p, VMSTACK_VM4_JEQ_K, 8, 0, empty);
	ld64(&p, 3, 8, L->fr_code);
	ld64(&p, 4, 3, L->ob_type);
	vm_prog_jmp64(&p, VMSTACK_VM4_JNE_K, 4, a->code_type, 7, bad);
	vm_prog_ld(&p, 4, 1, 4, 8, L->fr_lasti, VM_NO_LABEL);
	vm_prog_alu_k(&p, VMSTACK_VM4_ADD_K, 4, 1);
	cpython_prog_tag(&p, L, 3, 2);
	vm_prog_insn(&p, VMSTACK_VM4_EMIT_SCRIPT, 3, 4, 0);
	ld64(&p, 8, 8, L->fr_previous);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_SHOWN);
	vm_prog_bind(&p, empty);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_EMPTY);
	vm_prog_bind(&p, bad);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK);
	vm_prog_bind(&p, nostate);
	vm_prog_insn(&p, VMSTACK_VM4_EXIT, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE);

	return vm_prog_end_loop(&p, d, a->code_start, a->code_end);
}
