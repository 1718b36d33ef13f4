// SPDX-License-Identifier: GPL-2.0
/*
 * PHP found in the installed files by what they are (the engine's
 * exports, the version string), checked against their own code; builds it
 * does not know, or whose code disagrees, named and refused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect_file.h"
#include "unit.h"
#include "util.h"
#include "vm_prog_check.h"
#include "vm/runtime.h"

#define PHP_BIN "/usr/bin/php8.2"
#define PHP_FPM "/usr/sbin/php-fpm8.2"
#define MAP_START 0x555555554000ULL	/* a PIE's usual place: executor_globals needs a constant */

/* What the PHP runtime says of @path mapped whole at MAP_START (pid 0: a file). */
static enum vmstack_detect php_detect_file(const char *path, struct vmstack_vm_found *f,
					   char *why, size_t len)
{
	return unit_detect_file("php", path, MAP_START, f, why, len);
}

UNIT_TEST(php_builds_found)
{
	struct vmstack_vm_found f;
	char why[256];

	if (access(PHP_BIN, R_OK)) {
		fprintf(stderr, "  %s absent: PHP detection not tested\n", PHP_BIN);
		return;
	}
	CHECK(php_detect_file(PHP_BIN, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
	CHECK(f.prog && f.build_name && !strncmp(f.build_name, "PHP 8.2.", 8));
	CHECK(f.desc4.flags == VMSTACK_VM4_F_NATIVE_STEP && f.desc4.prog_len > 20);
	CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
	/* executor_globals, the program's one constant, where .dynsym has it. */
	CHECK(f.desc4.nr_consts == 1 && f.desc4.consts[0] == MAP_START + 0x58ae60);
	/* execute_ex and its cold part (FDEs of Debian's 8.2.36-1~deb12u1). */
	CHECK(f.desc4.ranges[0].start == MAP_START + 0x36cbe0 &&
	      f.desc4.ranges[0].end == MAP_START + 0x375efe);
	CHECK(f.desc4.ranges[1].start == MAP_START + 0x11ec6a &&
	      f.desc4.ranges[1].end == MAP_START + 0x11f502);
	CHECK(php_detect_file("/usr/bin/lua5.4", &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
	CHECK(php_detect_file("/bin/sh", &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
}

/*
 * php-fpm8.2 (php8.2-fpm): the same engine in another executable, found
 * by the same exports and code; a file here, its workers in a guest test
 * (t_vm_php_fpm).
 */
UNIT_TEST(php_fpm_found)
{
	struct vmstack_vm_found f;
	char why[256];

	if (access(PHP_FPM, R_OK)) {
		fprintf(stderr, "  %s absent (php8.2-fpm): php-fpm detection not tested\n", PHP_FPM);
		return;
	}
	CHECK(php_detect_file(PHP_FPM, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
	CHECK(f.prog && f.build_name && !strncmp(f.build_name, "PHP 8.2.", 8));
	CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
	/* executor_globals and execute_ex where its .dynsym has them (8.2.36-1~deb12u1). */
	CHECK(f.desc4.nr_consts == 1 && f.desc4.consts[0] == MAP_START + 0x582500);
	CHECK(f.desc4.ranges[0].start == MAP_START + 0x35c5c0 &&
	      f.desc4.ranges[0].end == MAP_START + 0x35c5c0 + 0x931e);
	/* Its cold part: the FDE of the same size as php8.2's (0x898 bytes). */
	CHECK(f.desc4.ranges[1].start == MAP_START + 0x110816 &&
	      f.desc4.ranges[1].end == MAP_START + 0x1110ae);
}

/* Another version, and a build whose code reads the frames elsewhere: named, refused. */
UNIT_TEST(php_unknown_builds)
{
	/* zend_get_executed_scope: lea executor_globals; mov 0x1e8(%rax),%rax */
	static const unsigned char scope[] = { 0x48, 0x8d, 0x05, 0x29, 0x83, 0x29, 0x00,
					       0x48, 0x8b, 0x80, 0xe8, 0x01, 0x00, 0x00 };
	static const unsigned char scope2[] = { 0x48, 0x8d, 0x05, 0x29, 0x83, 0x29, 0x00,
						0x48, 0x8b, 0x80, 0xf0, 0x01, 0x00, 0x00 };
	struct vmstack_vm_found f;
	const char *copy;
	char why[256];

	if (access(PHP_BIN, R_OK))
		return;
	copy = unit_patched_copy(PHP_BIN, "X-Powered-By: PHP/8.2.", "X-Powered-By: PHP/8.9.", 22, 1,
		       "build/unit-php89");
	CHECK(php_detect_file(copy, &f, why, sizeof(why)) == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "PHP 8.9.") && strstr(why, "does not know"));
	unlink(copy);
	copy = unit_patched_copy(PHP_BIN, scope, scope2, sizeof(scope), 1, "build/unit-php-scope");
	CHECK(php_detect_file(copy, &f, why, sizeof(why)) == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "zend_get_executed_scope") != NULL);
	unlink(copy);
}
