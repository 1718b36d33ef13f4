/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PHP 8.2 (the Zend engine, non-thread-safe builds): what one version's
 * structures look like (struct php_layout), the ABI 4 program that walks
 * its frames, and the version a file carries.
 */
#ifndef VMSTACK_VM_PHP_H
#define VMSTACK_VM_PHP_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/prog.h"

struct php_layout {
	const char *version;		/* a prefix of the version: "8.2." */
	uint64_t eg_size;		/* sizeof(zend_executor_globals) */
	int32_t eg_current_execute_data;
	/* zend_execute_data */
	int32_t ex_opline, ex_func, ex_call_info, ex_prev;
	uint32_t call_top;		/* ZEND_CALL_TOP in This.u1.type_info */
	/* zend_function: common.type's values, its name and class */
	int32_t fn_type, fn_name, fn_scope;
	uint8_t fn_internal, fn_user, fn_eval;
	/* zend_op_array */
	int32_t op_last, op_opcodes, op_filename, op_line_start;
	/* zend_op */
	int32_t opc_size, opc_lineno;
	/* zend_class_entry, zend_string */
	int32_t ce_name, str_len, str_val;
};

/* The layout for version @ver ("8.2.36"), or NULL. */
const struct php_layout *php_layout_of(const char *ver);

/*
 * The version in the file (PHP_VERSION, as its "X-Powered-By: PHP/"
 * header string carries it) in @ver; 0, or -1 if none.
 */
int php_file_version(Elf *elf, char *ver, size_t len);

/*
 * The program walking the zend_execute_data chain of one execute_ex
 * activation, @eg the address of executor_globals in the process.
 */
void php_prog(struct vm_prog *p, const struct php_layout *L, uint64_t eg);

#endif
