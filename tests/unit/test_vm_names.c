// SPDX-License-Identifier: GPL-2.0
/*
 * vm_names.c's stand-ins: a name whose read failed is read again later
 * (a PHP request's op_array between lives, the CI failure of
 * 2026-11-26: a php-fpm worker's {main} named [unreadable] for the whole
 * recording after one read between requests), a later name replaces it,
 * a real name is never replaced, and a stand-in is retried a bounded
 * number of times, not within a drain's microseconds.
 */
#include <time.h>

#include "unit.h"
#include "vm_names.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	nanosleep(&ts, NULL);
}

UNIT_TEST(vm_names_stand_in)
{
	struct vmstack_vm_names t = { 0 };
	struct vmstack_name un = { .kind = VMSTACK_FRAME_SCRIPT, .function = "[unreadable]", .file = "" };
	struct vmstack_name main_ = { .kind = VMSTACK_FRAME_SCRIPT, .function = "{main}", .file = "a.php", .line = 3 };
	struct vmstack_name other = { .kind = VMSTACK_FRAME_SCRIPT, .function = "other", .file = "b.php" };
	const struct vmstack_name *n;
	unsigned int tries;

	CHECK(vmstack_vm_names_wanted(&t, 0x1000, 0x20));
	vmstack_vm_names_put_stand_in(&t, 0x1000, 0x20, &un);
	n = vmstack_vm_names_get(&t, 0x1000, 0x20);
	CHECK(n && !strcmp(n->function, "[unreadable]"));
	/* Not again at once: a drain names its batch within microseconds. */
	CHECK(!vmstack_vm_names_wanted(&t, 0x1000, 0x20));
	sleep_ms(25);
	CHECK(vmstack_vm_names_wanted(&t, 0x1000, 0x20));
	vmstack_vm_names_put(&t, 0x1000, 0x20, &main_);
	n = vmstack_vm_names_get(&t, 0x1000, 0x20);
	CHECK(n && !strcmp(n->function, "{main}") && !strcmp(n->file, "a.php") && n->line == 3);
	CHECK(!vmstack_vm_names_wanted(&t, 0x1000, 0x20));
	/* A name stays: neither a stand-in nor another name replaces it. */
	vmstack_vm_names_put_stand_in(&t, 0x1000, 0x20, &un);
	vmstack_vm_names_put(&t, 0x1000, 0x20, &other);
	n = vmstack_vm_names_get(&t, 0x1000, 0x20);
	CHECK(n && !strcmp(n->function, "{main}"));
	/* A read that never succeeds is tried a bounded number of times. */
	for (tries = 0; tries < 100 && vmstack_vm_names_wanted(&t, 0x2000, 0); tries++) {
		vmstack_vm_names_put_stand_in(&t, 0x2000, 0, &un);
		sleep_ms(21);
	}
	CHECK(tries >= 2 && tries < 100);
	n = vmstack_vm_names_get(&t, 0x2000, 0);
	CHECK(n && !strcmp(n->function, "[unreadable]"));
	CHECK(t.table.n == 2);
	vmstack_vm_names_free(&t);
}
