// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "output_folded.h"
#include "stacks.h"
#include "unit.h"

UNIT_TEST(folded_merges_and_sorts)
{
	const char *a[] = { "prog", "main", "b" };
	const char *b[] = { "prog", "main", "a;x" };
	struct vmstack_folded f;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int i;

	vmstack_folded_init(&f);
	for (i = 0; i < 1000; i++) {
		char name[32];
		const char *c[] = { "prog", name };

		snprintf(name, sizeof(name), "f%04d", i);
		vmstack_folded_add(&f, c, 2, 1);
	}
	vmstack_folded_add(&f, a, 3, 2);
	vmstack_folded_add(&f, b, 3, 5);
	vmstack_folded_add(&f, a, 3, 3);
	out = open_memstream(&buf, &len);
	CHECK(!vmstack_folded_write(&f, out));
	fclose(out);
	/* ';' inside a frame cannot split it. */
	CHECK(!strncmp(buf, "prog;f0000 1\n", 13));
	CHECK(strstr(buf, "prog;main;a:x 5\nprog;main;b 5\n"));
	CHECK(f.n == 1002);
	free(buf);
	vmstack_folded_free(&f);
}

UNIT_TEST(stacks_count_distinct)
{
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[3];
	} r = { 0 };
	struct vmstack_stacks st;
	int i;

	vmstack_stacks_init(&st, 0);
	r.rec.nr_user = 3;
	for (i = 0; i < 5000; i++) {
		r.rec.tid = i;			/* ignored unless per thread */
		r.ips[0] = 0x1000 + i % 700;
		r.ips[1] = 0x2000;
		r.ips[2] = 0x3000;
		vmstack_stacks_add(&st, &r.rec);
	}
	CHECK(st.samples == 5000);
	CHECK(st.n == 700);
	vmstack_stacks_free(&st);
}

void output_tests(void)
{
	static const struct unit_test t[] = {
		{ "folded_merges_and_sorts", folded_merges_and_sorts },
		{ "stacks_count_distinct", stacks_count_distinct },
	};
	unit_run(t, 2);
}
