/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames as data: the words of a sample's stack decoded once, into what
 * each frame is (kind) and what identifies it. Everything after the ring
 * (naming, counting, every output format) works on these, never on raw
 * words or on name suffixes.
 */
#ifndef VMSTACK_FRAME_H
#define VMSTACK_FRAME_H

#include <stdint.h>

enum vmstack_frame_kind {
	VMSTACK_FRAME_ROOT,	/* the process (or thread) a stack belongs to */
	VMSTACK_FRAME_NATIVE,	/* user code */
	VMSTACK_FRAME_KERNEL,
	VMSTACK_FRAME_SCRIPT,	/* a VM's script function */
	VMSTACK_FRAME_BUILTIN,	/* a VM's builtin function */
	VMSTACK_FRAME_JIT,	/* code a VM compiled */
	VMSTACK_FRAME_CUT,	/* the VM part ends here: bad VM data */
	VMSTACK_NR_FRAME_KINDS,
};

struct vmstack_frame {
	enum vmstack_frame_kind kind;
	uint64_t value;		/* an address, or a VM word's value */
	uint64_t word;		/* VM frames: the whole VM word (names are kept by it) */
	uint64_t pc;		/* SCRIPT: the frame's PC in the VM, 0 if unknown */
	unsigned int vm;	/* VM frames: the index of the descriptor */
	int ret;		/* NATIVE, KERNEL: a return address */
};

/* The frames of one stack, leaf first: kernel ones, then user ones. */
struct vmstack_frame_iter {
	const uint64_t *ips;
	unsigned int nr_kernel, n, i;
	int in_kernel;		/* the sample hit kernel mode */
};

/* @flags: the sample's VMSTACK_SF_*. */
void vmstack_frames_start(struct vmstack_frame_iter *it, const uint64_t *ips,
			  unsigned int nr_kernel, unsigned int nr_user,
			  uint16_t flags);
/* 1 and *f set, or 0 past the last frame. */
int vmstack_frames_next(struct vmstack_frame_iter *it, struct vmstack_frame *f);
/* Is @kind a frame a VM produced (named by its runtime)? */
int vmstack_frame_is_vm(enum vmstack_frame_kind kind);

#endif
