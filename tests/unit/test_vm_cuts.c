// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's count of cut VM parts by reason (record/vm_cuts.c): the
 * innermost marker of each sample the module flagged, named beside its
 * marker's text in the summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "unit.h"
#include <linux/vmstack.h>

/* A user stack: a native frame, then a VM part cut for @reason (0: none). */
static void note_cut(struct record_vm_cuts *c, unsigned int reason)
{
	static union {
		struct vmstack_rec_sample rec;
		unsigned char bytes[sizeof(struct vmstack_rec_sample) + 3 * 8];
	} u;

	memset(&u, 0, sizeof(u));
	u.rec.nr_user = 3;
	u.rec.ips[0] = 0x401000;
	u.rec.ips[1] = reason ? vmstack_vmw(VMSTACK_VMW_BROKEN, 0, reason) : 0x401100;
	u.rec.ips[2] = reason == VMSTACK_VMB_STATE ? vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 6) :
						     0x401200;
	u.rec.hdr.flags = reason ? VMSTACK_SF_VM_BROKEN : 0;
	record_vm_cuts_note(c, &u.rec);
}

UNIT_TEST(vm_cuts_by_reason)
{
	struct record_vm_cuts c = { { 0 } };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	note_cut(&c, 0);
	note_cut(&c, VMSTACK_VMB_STATE);
	note_cut(&c, VMSTACK_VMB_STATE);
	note_cut(&c, VMSTACK_VMB_CHECK);
	/* The innermost marker counts, once a sample. */
	CHECK(c.by_reason[VMSTACK_VMB_STATE] == 2 && c.by_reason[VMSTACK_VMB_CHECK] == 1);
	f = open_memstream(&text, &len);
	record_vm_cuts_print(&c, f);
	fclose(f);
	CHECK(!strcmp(text, " (2 [vm stack cut: 1]: no sane VM state, "
			    "1 [vm stack cut: 6]: a frame failed a check)"));
	free(text);
	/* None: nothing printed. */
	memset(&c, 0, sizeof(c));
	f = open_memstream(&text, &len);
	record_vm_cuts_print(&c, f);
	fclose(f);
	CHECK(len == 0);
	free(text);
}
