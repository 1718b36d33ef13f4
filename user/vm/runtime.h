/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VM runtimes vmstack knows, one file each in user/vm/, behind one
 * table (runtimes.c): --vm, its help, detection in a target's mappings,
 * the "namer" key of text descriptors and the naming of frames all loop
 * over it. Adding a runtime is a file that defines a struct
 * vmstack_runtime, and a row in the table.
 *
 * A runtime knows builds, not names: what a build's structures look like
 * is a fact about that build (a layout, as data), taken from its DWARF
 * where it has some, else from a table keyed by what identifies it (its
 * build-id, or the version it carries), checked against that version's
 * source. An interpreter of a build it does not know is reported by name
 * and left native-only, never described by guess.
 */
#ifndef VMSTACK_VM_RUNTIME_H
#define VMSTACK_VM_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/vmstack.h>

#include "vm/desc3.h"

#include "frame.h"
#include "maps.h"

/*
 * What detection found in one mapping. A runtime describes its VM either
 * in ABI 3's structured form (desc, compiled to a program on attach) or
 * as an ABI 4 program of its own (desc4, with prog set): the runtimes
 * ABI 3 cannot express write programs (user/vm/prog.h).
 */
struct vmstack_vm_found {
	struct vmstack_vm_desc desc;	/* for the module, unless prog */
	struct vmstack_vm_desc4 desc4;	/* for the module, if prog */
	bool prog;
	const void *build;		/* the runtime's own facts of the build */
	const char *build_name;		/* for messages and the summary */
	/*
	 * Where a search across native frames (across_mask below) ends: the
	 * function that resumes another thread of the VM (Lua's lua_resume),
	 * in the process. Without it no frame is named across.
	 */
	uint64_t across_stop_lo, across_stop_hi;
};

enum vmstack_detect {
	VMSTACK_DETECT_NO,		/* not this runtime's interpreter */
	VMSTACK_DETECT_YES,		/* found, *f filled */
	VMSTACK_DETECT_UNKNOWN,		/* this runtime, a build not known: why says which */
};

struct vmstack_runtime {
	const char *name;	/* --vm NAME; "namer NAME" in descriptor texts */
	const char *alias;	/* another spelling of name, or NULL */
	const char *label;	/* in messages and the summary: "LuaJIT" */
	const char *help;	/* for --help: what is detected */
	/*
	 * Is the interpreter in mapping @m of process @pid (0: a file not
	 * running, as the unit tests ask)? NULL: a runtime that only names.
	 */
	enum vmstack_detect (*detect)(const struct vmstack_map *m, int pid,
				      struct vmstack_vm_found *f, char *why,
				      size_t len);
	/*
	 * Name VM frame @f of process @pid, of build @build: its parts in
	 * @out (zeroed by the caller). 0, or -1.
	 */
	int (*namer)(const void *build, int pid, const struct vmstack_frame *f,
		     struct vmstack_name_buf *out);
	/*
	 * What VM frame @caller's current instruction calls the frame
	 * @callee right above it, in @out (a Lua function has no name but
	 * the one its caller's code gives it): 0, or -1 if no name can be
	 * known there. NULL: frames are named by themselves alone.
	 */
	int (*site_namer)(const void *build, int pid, const struct vmstack_frame *callee,
			  const struct vmstack_frame *caller, char *out, size_t len);
	/* A frame's name depends on its PC (the line it is at), not only its identity. */
	bool names_by_pc;
	/*
	 * site_namer serves the runtime's descriptor (ABI 3) too: its call
	 * sites need no mark a program of its own would set (LuaJIT's own
	 * debug.getinfo names a tail-called function by its frame's link,
	 * as the walk sees it). Else only for a runtime's own program.
	 */
	bool sites_from_desc3;
	/*
	 * Script frames the VM itself called for an instruction of the next
	 * script frame of the VM below (a metamethod, a for iterator), across
	 * the native frames between them (frame.h's vmstack_frames_caller):
	 * those whose pc, masked with across_mask, is across_bits; none where
	 * the mask is 0, or where detect found no stop (vmstack_vm_found's
	 * across_stop_*). Data, so that a recording keeps it (raw_file.c).
	 */
	uint64_t across_mask, across_bits;
};

/* The runtimes, NULL-terminated. */
extern const struct vmstack_runtime *const vmstack_runtimes[];
/* A script identity that is the address of its name (text descriptors). */
extern const struct vmstack_runtime vmstack_rt_cstring;
/* By name or alias, or NULL. */
const struct vmstack_runtime *vmstack_runtime_find(const char *name);

#endif
