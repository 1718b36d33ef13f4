/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames as data: the words of a sample's stack decoded, by one function,
 * into what each frame is (kind) and what identifies it; and a frame's
 * name as data, its parts (function, file, lines) as its namer found
 * them. Everything after the ring (naming, counting, every output format)
 * works on these, never on raw words, and nothing parses a name back into
 * its parts.
 */
#ifndef VMSTACK_FRAME_H
#define VMSTACK_FRAME_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

enum vmstack_frame_kind {
	VMSTACK_FRAME_ROOT,	/* the process (or thread) a stack belongs to */
	VMSTACK_FRAME_NATIVE,	/* user code */
	VMSTACK_FRAME_KERNEL,
	VMSTACK_FRAME_SCRIPT,	/* a VM's script function */
	VMSTACK_FRAME_BUILTIN,	/* a VM's builtin function */
	VMSTACK_FRAME_JIT,	/* code a VM compiled */
	VMSTACK_FRAME_CUT,	/* the VM part ends here: bad VM data */
	VMSTACK_FRAME_UNVERIFIED, /* a VM frame whose function is not known */
	VMSTACK_NR_FRAME_KINDS,
};

/* A frame as read from a stack's words: made as it is read, not kept (user/stacks.h). */
struct vmstack_frame {
	uint64_t value;		/* an address, or a VM word's value */
	uint64_t pc;		/* SCRIPT: the frame's PC in the VM, 0 if unknown */
	enum vmstack_frame_kind kind;
	uint8_t vm;		/* VM frames: the index of the descriptor */
	uint8_t ret;		/* NATIVE, KERNEL: a return address */
};

/* The frames of one stack, leaf first: kernel ones, then user ones. */
struct vmstack_frame_iter {
	const uint64_t *ips;
	unsigned int nr_kernel, n, i;
	int in_kernel;		/* the sample hit kernel mode */
	int past_leaf;		/* a user frame came: the next address is a return */
};

/* @flags: the sample's VMSTACK_SF_*. */
void vmstack_frames_start(struct vmstack_frame_iter *it, const uint64_t *ips,
			  unsigned int nr_kernel, unsigned int nr_user,
			  uint16_t flags);
/* 1 and *f set, or 0 past the last frame. */
int vmstack_frames_next(struct vmstack_frame_iter *it, struct vmstack_frame *f);
/*
 * Script frames the VM itself called for an instruction of the next
 * script frame of the VM, across the native frames between them (a
 * metamethod: vm/runtime.h): those whose pc & mask is bits. A native
 * frame in [stop_lo, stop_hi) ends the search: past it (Lua's
 * lua_resume) are another thread's frames, not the caller.
 */
struct vmstack_vm_across {
	uint64_t mask, bits, stop_lo, stop_hi;
};
/*
 * @caller: the frame that calls script frame @f, the last one @it gave,
 * when that is the next one and a script frame of the same VM; else NULL.
 * Native code between them (a C function that called back, a VM entered
 * afresh) leaves the call unknown, unless @across (may be NULL) says the
 * VM itself called @f: then the next script frame of the VM, across native
 * frames up to a stop (none without a stop range).
 */
const struct vmstack_frame *vmstack_frames_caller(const struct vmstack_frame_iter *it,
						  const struct vmstack_frame *f,
						  struct vmstack_frame *caller,
						  const struct vmstack_vm_across *across);
/* Is @kind a frame a VM produced (named by its runtime)? */
int vmstack_frame_is_vm(enum vmstack_frame_kind kind);
/* A VM frame's whole VM word (kind, VM, value): what its name is kept by. */
uint64_t vmstack_frame_word(const struct vmstack_frame *f);

/* How a name's text shows its parts (vmstack_name_text). */
enum {
	/* "FUNCTION (FILE:LINE)": the line it is at (CPython, --lines) */
	VMSTACK_NAME_AT_LINE = 1,
	/* "FUNCTION (inlined)": a call inlined into the frame outside it (--lines) */
	VMSTACK_NAME_INLINED = 2,
};

/*
 * What a frame is called: its function as its runtime knows it (a Lua
 * function, which has no name of its own, is "CHUNK:LINE", where it is
 * defined), the source file, the line the frame is at and the function's
 * first line. Collapsed stacks and flame graphs show it as text made from
 * the parts (vmstack_name_text); pprof writes the parts as its fields.
 */
struct vmstack_name {
	enum vmstack_frame_kind kind;
	const char *function;
	const char *file;	/* "" if unknown */
	uint32_t line;		/* 0 if unknown */
	uint32_t start_line;	/* 0 if unknown */
	unsigned int flags;	/* VMSTACK_NAME_* */
};

/* A name in buffers of its own: what a namer fills. */
struct vmstack_name_buf {
	char function[256];
	char file[512];
	uint32_t line, start_line;
	unsigned int flags;
};

/* @n with its function and file copied, in one block: free with vmstack_name_free(). */
struct vmstack_name vmstack_name_dup(const struct vmstack_name *n);
void vmstack_name_free(struct vmstack_name *n);
/* @b as a name of kind @kind (pointing into @b). */
struct vmstack_name vmstack_name_of(const struct vmstack_name_buf *b,
				    enum vmstack_frame_kind kind);
/*
 * The text of @n in @buf, as snprintf() writes it: its length whole (not
 * cut to @len). The function, " (inlined)" if it is, then " (FILE:LINE)"
 * if it shows its line: native code's FILE is a base name (DWARF's paths
 * are the build machine's), a script's the whole name its VM gives.
 */
size_t vmstack_name_text(const struct vmstack_name *n, char *buf, size_t len);

#endif
