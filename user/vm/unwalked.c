// SPDX-License-Identifier: GPL-2.0
/*
 * Interpreters vmstack recognises but does not walk: a process that runs
 * one is profiled with native stacks only, and the user is told which
 * runtime, in which file, of which version, rather than left to wonder
 * why a Redis shows no script frames. One row each; a runtime
 * that becomes walked moves to the table in runtimes.c.
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/cpython/cpython.h"
#include "vm/lua/lua_version.h"
#include "file.h"
#include "unwalked.h"

/* 0 if the file holds this row's interpreter, named with its version in @ver. */
typedef int unwalked_holds(Elf *elf, char *ver, size_t len);

/*
 * PUC Lua by the version in lua_ident; 5.1 to 5.4 are walked
 * (user/vm/lua/), and a build of theirs they do not know they name.
 */
static int lua_holds(Elf *elf, char *ver, size_t len)
{
	if (vmstack_lua_version(elf, ver, len) || !strncmp(ver, "Lua 5.1", 7) ||
	    !strncmp(ver, "Lua 5.2", 7) || !strncmp(ver, "Lua 5.3", 7) ||
	    !strncmp(ver, "Lua 5.4", 7))
		return -1;
	return 0;
}

/*
 * CPython's evaluator without Py_Version (that variable came in 3.11, and
 * cpython/cpython.c names every CPython that has it, walked or not): the
 * version its Py_GetVersion formats; 3.9 and 3.10 are walked
 * (cpython/frame_object.c).
 */
static int cpython_holds(Elf *elf, char *ver, size_t len)
{
	GElf_Sym sym;
	uint64_t hex;
	unsigned int minor;

	if (vmstack_elf_symbol(elf, "_PyEval_EvalFrameDefault", &sym) ||
	    !vmstack_elf_symbol(elf, "Py_Version", &sym))
		return -1;
	if (!cpython_version_string(elf, &hex)) {
		snprintf(ver, len, "CPython older than 3.11 (no Py_Version; its version not found)");
		return 0;
	}
	minor = hex >> 16 & 0xff;
	if (minor == 9 || minor == 10)
		return -1;
	snprintf(ver, len, "CPython 3.%u.%u", minor, (unsigned int)(hex >> 8 & 0xff));
	return 0;
}

static unwalked_holds *const unwalked[] = { lua_holds, cpython_holds };

int vmstack_vm_unwalked(const struct vmstack_map *m, char *what, size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	size_t i;

	if (!elf)
		return -1;
	for (i = 0; i < sizeof(unwalked) / sizeof(*unwalked); i++)
		if (!unwalked[i](elf, what, len))
			return (int)i;
	return -1;
}
