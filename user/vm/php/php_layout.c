// SPDX-License-Identifier: GPL-2.0
/*
 * PHP's structures per version, and the version a file carries. Debian's
 * builds have no DWARF and no .symtab; the offsets are those of
 * Documentation/runtime-layouts.md ("PHP 8.2"): read off the disassembly
 * of Debian's /usr/bin/php8.2 (8.2.36-1~deb12u1, NTS), with field names as
 * php-src's PHP-8.2 branch spells them, and checked on live processes of
 * it (tests/unit/test_vm_php.c walks one). Detection checks the ones the
 * file's own code shows (php.c) before any upload.
 */
#include <string.h>

#include "vm/php/php.h"

/* PHP 8.2.x, x86-64, NTS. */
static const struct php_layout php82 = {
	.version = "8.2.",
	.eg_size = 1800,
	.eg_current_execute_data = 0x1e8,
	.ex_opline = 0, .ex_func = 0x18, .ex_call_info = 0x28, .ex_prev = 0x30,
	.call_top = 0x20000,
	.fn_type = 0, .fn_name = 0x08, .fn_scope = 0x10,
	.fn_internal = 1, .fn_user = 2, .fn_eval = 4,
	.op_last = 0x50, .op_opcodes = 0x58, .op_filename = 0x98, .op_line_start = 0xa0,
	.opc_size = 32, .opc_lineno = 0x18,
	.ce_name = 0x08, .str_len = 0x10, .str_val = 0x18,
};

static const struct php_layout *const php_layouts[] = { &php82 };

const struct php_layout *php_layout_of(const char *ver)
{
	size_t i;

	for (i = 0; i < sizeof(php_layouts) / sizeof(php_layouts[0]); i++)
		if (!strncmp(ver, php_layouts[i]->version, strlen(php_layouts[i]->version)))
			return php_layouts[i];
	return NULL;
}

/*
 * PHP_VERSION is only in the file's strings: the SAPIs send it as
 * "X-Powered-By: PHP/8.2.36", a constant in .rodata.
 */
int php_file_version(Elf *elf, char *ver, size_t len)
{
	static const char tag[] = "X-Powered-By: PHP/";
	Elf_Scn *scn = NULL;
	size_t shstrndx, left, n;
	const char *at, *name;
	GElf_Shdr sh;
	Elf_Data *d;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -1;
		at = memmem(d->d_buf, d->d_size, tag, sizeof(tag) - 1);
		if (!at)
			return -1;
		at += sizeof(tag) - 1;
		left = d->d_size - (size_t)(at - (const char *)d->d_buf);
		n = strnlen(at, left < 16 ? left : 16);
		if (!n || n >= len)
			return -1;
		memcpy(ver, at, n);
		ver[n] = 0;
		return 0;
	}
	return -1;
}
