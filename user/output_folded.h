/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collapsed ("folded") stacks: one line per distinct stack, frames root
 * first separated by ';', then a space and the count. Lines are sorted so
 * the same profile always gives the same file.
 */
#ifndef VMSTACK_OUTPUT_FOLDED_H
#define VMSTACK_OUTPUT_FOLDED_H

#include <stdint.h>
#include <stdio.h>

struct vmstack_folded_line {
	char *line;
	uint64_t count;
};

struct vmstack_folded {
	struct vmstack_folded_line *slots;
	size_t nslots, n;
};

void vmstack_folded_init(struct vmstack_folded *f);
/* Adds @count to the line made of @frames (root first). */
void vmstack_folded_add(struct vmstack_folded *f, const char *const *frames,
			size_t nframes, uint64_t count);
int vmstack_folded_write(struct vmstack_folded *f, FILE *out);
void vmstack_folded_free(struct vmstack_folded *f);

#endif
