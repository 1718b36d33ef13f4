/* SPDX-License-Identifier: GPL-2.0 */
/* The live PHP walk of php82.c, shared with php82_fpm.c (php-fpm's workers). */
#ifndef VMSTACK_UNIT_PHP82_LIVE_H
#define VMSTACK_UNIT_PHP82_LIVE_H

#include <stdbool.h>

/*
 * A script the live part stops in sleep(), after it said it is ready, and
 * the PHP frames the walk must show there, innermost first, and no other:
 * the first @inner of them in the inner activation (the fake sandwich's),
 * then the outer activation's; line numbers are the script's. @one: the
 * stop has one execute_ex activation on its native stack (a fiber's), so
 * the sample is taken in the sandwich's outer loop frame, whose activation
 * shows all @n.
 */
struct live_case {
	const char *script;
	unsigned int n, inner;
	const char *fn[6];
	unsigned int line[6];
	bool one;
};

/*
 * Process @pid running @c's script (its file's name contains @script),
 * stopped where it said: detection on its mapping of @exe, the program on
 * its memory, the namer on what that shows; CHECKs each.
 */
void php82_live_check(const struct live_case *c, int pid, const char *exe, const char *script);

#endif
