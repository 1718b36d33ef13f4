// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output/output.h"
#include "profile.h"
#include "stacks.h"
#include "unit.h"
#include "user_names.h"

const char *user_name(struct vmstack_process *s, uint64_t addr, int ret, char *buf, size_t len)
{
	struct vmstack_where w;

	vmstack_process_resolve(s, addr, ret, &w, buf, len);
	if (w.name != buf)
		snprintf(buf, len, "%s", w.name);
	return buf;
}

size_t user_lines(struct vmstack_process *s, uint64_t addr, struct vmstack_name *names)
{
	/* The function's name, when resolving writes it: the names point into it. */
	static char buf[512];
	struct vmstack_where w;

	vmstack_process_resolve(s, addr, 0, &w, buf, sizeof(buf));
	return vmstack_process_lines(s, &w, names, VMSTACK_MAX_INLINE);
}

/* Every stack is process @arg's, "app". */
static int app_source(void *arg, uint32_t pid, struct vmstack_name_source *src)
{
	(void)pid;
	*src = (struct vmstack_name_source){ .proc = arg, .comm = "app" };
	return 0;
}

char *user_folded(struct vmstack_process *s, const uint64_t *ips, unsigned int n,
		  int no_demangle)
{
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[8];
	} r = { 0 };
	struct vmstack_profile p;
	struct vmstack_stacks st;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	r.rec.hdr.type = VMSTACK_REC_SAMPLE;
	r.rec.hdr.size = (uint32_t)(sizeof(r.rec) + n * 8);
	r.rec.pid = (uint32_t)getpid();
	r.rec.nr_user = (uint16_t)n;
	memcpy(r.ips, ips, n * 8);
	vmstack_stacks_init(&st, 0);
	vmstack_stacks_add(&st, &r.rec);
	vmstack_profile_init(&p);
	vmstack_profile_name(&p, &st, &(struct vmstack_name_opts){
		.source = app_source, .arg = s, .no_demangle = no_demangle });
	out = open_memstream(&text, &len);
	CHECK(!vmstack_output_find("folded")->write(&p, NULL, out));
	fclose(out);
	vmstack_profile_free(&p);
	vmstack_stacks_free(&st);
	return text;
}
