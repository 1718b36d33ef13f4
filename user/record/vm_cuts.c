// SPDX-License-Identifier: GPL-2.0
/*
 * Why VM parts were cut: each sample whose VM part the module cut
 * (VMSTACK_SF_VM_BROKEN) is counted by the reason its marker carries,
 * and the summary names each reason beside its marker, so that
 * "[vm stack cut: 1]" in a profile can be read without the uapi header.
 */
#include <inttypes.h>
#include <stdio.h>

#include "record.h"
#include "frame.h"

static const char *const reasons[__VMSTACK_VMB_MAX] = {
	[VMSTACK_VMB_STATE] = "no sane VM state",
	[VMSTACK_VMB_FRAME] = "a frame where none can be",
	[VMSTACK_VMB_READ] = "VM memory unreadable",
	[VMSTACK_VMB_DEPTH] = "more VM frames than a run shows",
	[VMSTACK_VMB_BUDGET] = "the read budget spent",
	[VMSTACK_VMB_CHECK] = "a frame failed a check",
	[VMSTACK_VMB_FAULTS] = "VM reads faulted too often",
	[VMSTACK_VMB_STEPS] = "the program's steps spent",
};

void record_vm_cuts_note(struct record_vm_cuts *c, const struct vmstack_rec_sample *rec)
{
	struct vmstack_frame_iter it;
	struct vmstack_frame f;

	if (!(rec->hdr.flags & VMSTACK_SF_VM_BROKEN))
		return;
	/* The innermost marker: the first cut of the sample's stack. */
	vmstack_frames_start(&it, (const uint64_t *)rec->ips, rec->nr_kernel, rec->nr_user,
			     rec->hdr.flags);
	while (vmstack_frames_next(&it, &f))
		if (f.kind == VMSTACK_FRAME_CUT) {
			c->by_reason[f.value < __VMSTACK_VMB_MAX ? f.value : 0]++;
			return;
		}
}

void record_vm_cuts_print(const struct record_vm_cuts *c, FILE *out)
{
	const char *sep = " (";
	unsigned int i;

	for (i = 0; i < __VMSTACK_VMB_MAX; i++) {
		if (!c->by_reason[i])
			continue;
		fprintf(out, "%s%" PRIu64 " [vm stack cut: %u]: %s", sep, c->by_reason[i], i,
			reasons[i] ? reasons[i] : "a reason this tool does not know");
		sep = ", ";
	}
	if (sep[0] == ',')
		fputc(')', out);
}
