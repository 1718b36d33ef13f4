// SPDX-License-Identifier: GPL-2.0
/*
 * Ruby found in the installed libruby by what it is (rb_vm_exec,
 * ruby_current_ec, ruby_version), vm_exec_core by rb_vm_exec's first call;
 * another version, or a build whose code walks frames otherwise, named and
 * refused.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect_file.h"
#include "unit.h"
#include "util.h"
#include "vm_prog_check.h"
#include "vm/runtime.h"

#define LIBRUBY "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1"
#define MAP_START 0x7f0000000000ULL

static enum vmstack_detect ruby_detect_file(const char *path, struct vmstack_vm_found *f,
					    char *why, size_t len)
{
	return unit_detect_file("ruby", path, MAP_START, f, why, len);
}

UNIT_TEST(ruby_builds_found)
{
	struct vmstack_vm_found f;
	char why[256];
	unsigned int i;

	if (access(LIBRUBY, R_OK)) {
		fprintf(stderr, "  %s absent: Ruby detection not tested\n", LIBRUBY);
		return;
	}
	CHECK(ruby_detect_file(LIBRUBY, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
	CHECK(f.prog && f.build_name && !strcmp(f.build_name, "Ruby 3.1.2"));
	CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
	/* vm_exec_core: the FDE at rb_vm_exec's first call (Debian's 3.1.2 file). */
	CHECK(f.desc4.ranges[0].start == MAP_START + 0x24ebd0 &&
	      f.desc4.ranges[0].end == MAP_START + 0x253047);
	/* ruby_current_ec at fs - 0x10 + 8: the program's load from r6, the fs base. */
	for (i = 0; i < f.desc4.prog_len; i++)
		if (f.desc4.prog[i].op == VMSTACK_VM4_LD64 && f.desc4.prog[i].regs >> 4 == 6)
			break;
	CHECK(i < f.desc4.prog_len && f.desc4.prog[i].imm == -8);
	CHECK(ruby_detect_file("/usr/bin/php8.2", &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
	CHECK(ruby_detect_file("/bin/sh", &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
	/*
	 * Another version: named, refused. The first "3.1.2" NUL-terminated
	 * is ruby_version's (at 0x2cc9e9 in Debian's).
	 */
	if (!unit_patched_copy(LIBRUBY, "3.1.2\0", "3.1.9\0", 6, 0, "build/unit-libruby319"))
		return;
	CHECK(ruby_detect_file("build/unit-libruby319", &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "Ruby 3.1.9") && strstr(why, "does not know"));
	unlink("build/unit-libruby319");
}

/*
 * A build whose code walks frames of another size (rb_profile_frames'
 * "add $0x40,%rbx" made 0x38): named, refused, with what disagrees.
 */
UNIT_TEST(ruby_code_disagrees)
{
	static const unsigned char stride[] = { 0x48, 0x83, 0xc3, 0x40, 0x45, 0x39 };
	static const unsigned char stride56[] = { 0x48, 0x83, 0xc3, 0x38, 0x45, 0x39 };
	struct vmstack_vm_found f;
	char why[256];

	if (access(LIBRUBY, R_OK) ||
	    !unit_patched_copy(LIBRUBY, stride, stride56, sizeof(stride), 1,
			      "build/unit-libruby-stride"))
		return;
	CHECK(ruby_detect_file("build/unit-libruby-stride", &f, why, sizeof(why)) ==
	      VMSTACK_DETECT_UNKNOWN);
	CHECK(!f.prog && strstr(why, "Ruby 3.1.2 whose code disagrees") &&
	      strstr(why, "control frame size"));
	unlink("build/unit-libruby-stride");
}
