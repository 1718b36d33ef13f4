/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process as naming sees it (perf's thread and maps): its mappings, each
 * holding its file's object (user/file.h, shared by every process), the
 * JIT code it lists in /tmp/perf-PID.map, and its VMs: which runtime names
 * each VM's frames, and the names they gave. resolve() says where a user
 * address is and what it is called, for every consumer at once.
 */
#ifndef VMSTACK_PROCESS_H
#define VMSTACK_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "file.h"
#include "frame.h"
#include "maps.h"
#include "vm_names.h"
#include "vm_sites.h"

struct vmstack_process;

struct vmstack_process *vmstack_process_new(int pid);
void vmstack_process_free(struct vmstack_process *p);
/*
 * Native functions' names demangled (C++, Rust: user/demangle.h), as they
 * are from the start, or as their files spell them (@on false: --no-demangle).
 */
void vmstack_process_demangle(struct vmstack_process *p, bool on);
/*
 * Read /proc/PID/maps again: mappings seen first now get their file's
 * object. Returns the number of new mappings, or -1.
 */
int vmstack_process_refresh(struct vmstack_process *p);
/* The same from maps lines in @f (a saved recording). */
int vmstack_process_add_maps(struct vmstack_process *p, FILE *f);
/* Every mapping seen, as maps lines (device numbers are not kept). */
int vmstack_process_write_maps(const struct vmstack_process *p, FILE *f);
size_t vmstack_process_nr_maps(const struct vmstack_process *p);
/* Is @addr in a mapping read so far (or a VM word)? */
int vmstack_process_knows(const struct vmstack_process *p, uint64_t addr);
/* Called for each executable file mapping (and the vDSO) when it is first seen. */
typedef void (*vmstack_new_map_fn)(void *arg, struct vmstack_map *m);
void vmstack_process_on_new_map(struct vmstack_process *p, vmstack_new_map_fn fn,
				void *arg);
/*
 * Open a file and build its unwind rows before the process maps it (a
 * command about to start), so that the mapping can be served at once.
 */
void vmstack_process_prewarm(struct vmstack_process *p, const char *path);
/* Read /tmp/perf-PID.map (JIT code), if the process wrote one. */
void vmstack_process_load_perf_map(struct vmstack_process *p);

/* Where a user address is and what it is called. */
struct vmstack_where {
	const struct vmstack_map *map;	/* NULL: in no mapping read */
	struct vmstack_file *file;	/* map's file object; NULL: none (anonymous, JIT) */
	uint64_t offset;		/* in map's file */
	bool linked;			/* vaddr known (the file's load segments hold offset) */
	uint64_t vaddr;			/* link-time address */
	/*
	 * The address a frame of it stands for, for formats that show
	 * addresses (pprof): its function's entry when it has one (a named
	 * frame is the function, not one instruction), else the address.
	 */
	uint64_t addr;
	/*
	 * Its function's name, whole (a C++ function's can be thousands of
	 * bytes): the symbol's as frames show it (vmstack_file_shown_name;
	 * with --no-demangle as the file spells it, its version cut off), a
	 * perf map's name; or made in the caller's buffer, cut to it:
	 * "FILE+0xVADDR" (its file's base name, an address addr2line takes)
	 * in a file without it, "PATH+0xOFFSET" in a mapping without a file
	 * object, or "[unknown]".
	 */
	const char *name;
	bool perf_map;			/* name is the process's perf map's */
};

/*
 * Resolve user address @addr (@ret: a return address, so the call is the
 * instruction before it) into @w; names made up are written to @buf.
 */
void vmstack_process_resolve(struct vmstack_process *p, uint64_t addr, int ret,
			     struct vmstack_where *w, char *buf, size_t len);
/*
 * The frames of the address resolved in @w with source lines (--lines),
 * outermost first (vmstack_file_lines); the one frame @w names where its
 * file's link-time addresses are not known. At most @max in @names.
 */
size_t vmstack_process_lines(struct vmstack_process *p, const struct vmstack_where *w,
			     struct vmstack_name *names, size_t max);
/*
 * The name of any frame (its kind says what it is) in @n; its strings are
 * in @buf, the file's or the process's, valid until the next call. A VM
 * frame's @caller (vmstack_frames_caller(), or NULL) names it where its
 * runtime names frames by their call: "NAME (FILE:LINE)".
 */
void vmstack_process_name(struct vmstack_process *p, const struct vmstack_frame *f,
			  const struct vmstack_frame *caller, struct vmstack_name *n, char *buf,
			  size_t len);

/*
 * VM frames: each VM word (a script identity, a builtin function, a
 * compiled code object) is named by the namer of the VM that produced it
 * (its descriptor's index), read from the live process the first time the
 * word is seen, then kept. A namer returns -1 for what it cannot name.
 */
struct vmstack_vm_namer {
	int (*name)(const void *build, int pid, const struct vmstack_frame *f,
		    struct vmstack_name_buf *out);
	/* What a caller's call names the frame it calls, or NULL (vm/runtime.h). */
	int (*site)(const void *build, int pid, const struct vmstack_frame *callee,
		    const struct vmstack_frame *caller, char *out, size_t len);
	const void *build;	/* the runtime's description of the build */
	bool by_pc;		/* names differ by the frame's PC (lines): kept by word and PC */
	struct vmstack_vm_across across;	/* mask 0: none (vm/runtime.h) */
};
/*
 * Which of VM @vm's frames are named across native frames (vmstack_frames_caller's
 * @across; raw_file.c keeps it): NULL when none are.
 */
const struct vmstack_vm_across *vmstack_process_vm_across(const struct vmstack_process *p,
							  unsigned int vm);
void vmstack_process_set_vm_namer(struct vmstack_process *p, unsigned int vm,
				  const struct vmstack_vm_namer *namer);
/* VM @vm's frames named across native frames, as a recording keeps them (raw_file.c). */
void vmstack_process_set_vm_across(struct vmstack_process *p, unsigned int vm,
				   const struct vmstack_vm_across *a);
/*
 * Name VM frame @f now (while the process lives), if not named yet, and
 * what @caller (the VM frame below it, vmstack_frames_caller(), or NULL)
 * calls it, where its runtime names frames so.
 */
void vmstack_process_note_vm(struct vmstack_process *p, const struct vmstack_frame *f,
			     const struct vmstack_frame *caller);
/*
 * The names kept, by tagged word and PC, for saving and loading
 * recordings (@n's kind is the word's).
 */
void vmstack_process_add_vm_name(struct vmstack_process *p, uint64_t ident, uint64_t pc,
				 const struct vmstack_name *n);
const struct vmstack_vm_names *vmstack_process_vm_names(const struct vmstack_process *p);
/* The call-site names kept, likewise. */
void vmstack_process_add_vm_site(struct vmstack_process *p, const struct vmstack_vm_site *s,
				 const char *name);
const struct vmstack_vm_sites *vmstack_process_vm_sites(const struct vmstack_process *p);

#endif
