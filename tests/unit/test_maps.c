// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "maps.h"
#include "unit.h"

UNIT_TEST(maps_parse_lines)
{
	char l1[] = "55d0c0a00000-55d0c0a21000 r-xp 00002000 08:01 1234567                    /usr/bin/prog with space\n";
	char l2[] = "7ffd1c5e0000-7ffd1c601000 rw-p 00000000 00:00 0                          [stack]\n";
	char l3[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n";
	char bad[] = "garbage line\n";
	struct vmstack_map m;

	CHECK(!vmstack_map_parse(l1, &m));
	CHECK(m.start == 0x55d0c0a00000ULL && m.end == 0x55d0c0a21000ULL);
	CHECK(m.offset == 0x2000 && m.inode == 1234567);
	CHECK(!strcmp(m.perms, "r-xp"));
	CHECK(!strcmp(m.path, "/usr/bin/prog with space"));
	CHECK(!vmstack_map_parse(l2, &m) && !strcmp(m.path, "[stack]"));
	CHECK(!vmstack_map_parse(l3, &m) && !strcmp(m.path, ""));
	CHECK(vmstack_map_parse(bad, &m));
}

UNIT_TEST(maps_keep_history)
{
	const char *a = "1000-2000 r-xp 00000000 08:01 5 /lib/a.so\n";
	const char *b = "1000-2000 r-xp 00000000 08:01 6 /lib/b.so\n";
	struct vmstack_maps maps = { 0 };
	FILE *f;

	f = fmemopen((void *)a, strlen(a), "r");
	CHECK(vmstack_maps_update(&maps, f) == 1);
	fclose(f);
	f = fmemopen((void *)a, strlen(a), "r");
	CHECK(vmstack_maps_update(&maps, f) == 0);
	fclose(f);
	/* The range is reused by another file: the newest one wins. */
	f = fmemopen((void *)b, strlen(b), "r");
	CHECK(vmstack_maps_update(&maps, f) == 1);
	fclose(f);
	CHECK(maps.n == 2);
	CHECK(!strcmp(vmstack_maps_find(&maps, 0x1800)->path, "/lib/b.so"));
	CHECK(!vmstack_maps_find(&maps, 0x2000));
	vmstack_maps_free(&maps);
}
