// SPDX-License-Identifier: GPL-2.0
/*
 * Interpreters vmstack recognises but does not walk: a process that runs
 * one is profiled with native stacks only, and the user is told which
 * runtime, in which file, of which version, rather than left to wonder
 * why a Redis or a Ruby shows no script frames. One row each; a runtime
 * that becomes walked moves to the table in runtimes.c.
 */
#include <stdio.h>
#include <string.h>

#include "elf_facts.h"
#include "vm/lua/lua_version.h"
#include "file.h"
#include "unwalked.h"

/* 0 if the file holds this row's interpreter, named with its version in @ver. */
typedef int unwalked_holds(Elf *elf, char *ver, size_t len);

/* A NUL-terminated string at link-time address @vaddr, at most @len - 1 bytes. */
static int read_string(Elf *elf, uint64_t vaddr, size_t size, char *buf, size_t len)
{
	if (!size || size > len)
		size = len;
	if (vmstack_elf_read(elf, vaddr, buf, size))
		return -1;
	buf[size - 1] = 0;
	return 0;
}

/*
 * PUC Lua by the version in lua_ident; 5.1, 5.3 and 5.4 are walked
 * (user/vm/lua/), and a build of theirs they do not know they name.
 */
static int lua_holds(Elf *elf, char *ver, size_t len)
{
	if (vmstack_lua_version(elf, ver, len) || !strncmp(ver, "Lua 5.1", 7) ||
	    !strncmp(ver, "Lua 5.3", 7) || !strncmp(ver, "Lua 5.4", 7))
		return -1;
	return 0;
}

/* libruby exports rb_vm_exec and its version string, ruby_version ("3.1.2"). */
static int ruby_holds(Elf *elf, char *ver, size_t len)
{
	char v[16];
	GElf_Sym sym;

	if (vmstack_elf_symbol(elf, "rb_vm_exec", &sym))
		return -1;
	if (vmstack_elf_symbol(elf, "ruby_version", &sym) ||
	    read_string(elf, sym.st_value, sym.st_size, v, sizeof(v)))
		*v = 0;
	snprintf(ver, len, "Ruby%s%s", *v ? " " : "", v);
	return 0;
}

/*
 * The Zend engine exports execute_ex and zend_execute_ex; PHP's version is
 * only in its strings, as "X-Powered-By: PHP/8.2.36" in .rodata.
 */
static int php_holds(Elf *elf, char *ver, size_t len)
{
	static const char tag[] = "X-Powered-By: PHP/";
	Elf_Scn *scn = NULL;
	const char *at;
	size_t shstrndx;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	if (vmstack_elf_symbol(elf, "execute_ex", &sym) ||
	    vmstack_elf_symbol(elf, "zend_execute_ex", &sym))
		return -1;
	snprintf(ver, len, "PHP");
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return 0;
		at = memmem(d->d_buf, d->d_size, tag, sizeof(tag) - 1);
		if (at) {
			size_t left = d->d_size - (at - (const char *)d->d_buf) - (sizeof(tag) - 1);
			const char *v = at + sizeof(tag) - 1;
			size_t n = strnlen(v, left < 16 ? left : 16);

			snprintf(ver, len, "PHP %.*s", (int)n, v);
		}
		return 0;
	}
	return 0;
}

/*
 * CPython's evaluator without Py_Version: that variable came in 3.11, and
 * cpython/cpython.c names every CPython that has it, walked or not.
 */
static int cpython_holds(Elf *elf, char *ver, size_t len)
{
	GElf_Sym sym;

	if (vmstack_elf_symbol(elf, "_PyEval_EvalFrameDefault", &sym) ||
	    !vmstack_elf_symbol(elf, "Py_Version", &sym))
		return -1;
	snprintf(ver, len, "CPython older than 3.11 (no Py_Version)");
	return 0;
}

static unwalked_holds *const unwalked[] = { lua_holds, ruby_holds, php_holds, cpython_holds };

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
