/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A named profile: distinct stacks of named frames (root first) and their
 * sample counts, plus what the recording says of itself. It is what every
 * output format writes (user/output/) and what a folded file reads back
 * into; frames keep their kind, so no format parses names to learn it.
 */
#ifndef VMSTACK_PROFILE_H
#define VMSTACK_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

struct vmstack_stacks;
struct vmstack_process;
struct vmstack_threads;

/* A file as mapped, for formats that show addresses (pprof). */
struct vmstack_pmap {
	char *path, *build_id;	/* build_id: hex, "" if none */
	uint64_t start, limit, offset;
};

/*
 * A frame as shown: its name's parts (user/frame.h), interned, so equal
 * frames have one id. A native frame also says where it is: a mapping
 * and the address it stands for (its function's entry; see struct
 * vmstack_where, user/process.h).
 */
struct vmstack_pframe {
	enum vmstack_frame_kind kind;
	const char *function, *file;	/* vmstack_name_dup()'s */
	uint32_t line, start_line;
	unsigned int flags;		/* VMSTACK_NAME_* */
	uint32_t map;		/* index + 1 in the profile's maps; 0: none */
	uint64_t addr;		/* with map */
};

struct vmstack_pstack {
	uint64_t count;
	uint32_t pid;		/* its process; 0: unknown (a folded file) */
	uint32_t tid;		/* with stacks per thread; else 0 */
	uint32_t n;
	uint32_t frames[];	/* ids, root first */
};

/* A process whose stacks the profile holds, for formats that label them. */
struct vmstack_pproc {
	uint32_t pid;
	char *comm;
	char *cgroup;		/* "" if unknown */
};

struct vmstack_profile {
	struct vmstack_pframe *frames;
	size_t nframes, capframes;
	size_t *frame_slots, nframe_slots;	/* id + 1 by hash of name and kind */
	struct vmstack_pstack **slots;		/* stacks by hash of their ids */
	size_t nslots, nstacks;
	struct vmstack_pmap *maps;
	size_t nmaps;
	struct vmstack_pproc *procs;
	size_t nprocs;
	size_t *proc_slots, nproc_slots;	/* index + 1 by pid */
	/* Thread names for stacks kept per thread; NULL: none. */
	const struct vmstack_threads *threads;
	uint64_t samples;
	/* What the recording says of itself, for summaries (0: unknown). */
	uint64_t lost;
	unsigned int freq;	/* samples per second per CPU: a sample's CPU time */
	/* Counts are microseconds off CPU (--off-cpu), not samples. */
	int off_cpu;
	/* Counts are microseconds on and off CPU (--wall), not samples. */
	int wall;
	uint64_t duration_ns;	/* the recording's wall time */
};

void vmstack_profile_init(struct vmstack_profile *p);
void vmstack_profile_free(struct vmstack_profile *p);
/* The id of the frame named @n (added if new). */
uint32_t vmstack_profile_intern(struct vmstack_profile *p, const struct vmstack_name *n);
/* The id of the frame of @kind whose name is only a function, @name. */
uint32_t vmstack_profile_frame(struct vmstack_profile *p, const char *name,
			       enum vmstack_frame_kind kind);
/* Frame @f's name, pointing into @f. */
struct vmstack_name vmstack_pframe_name(const struct vmstack_pframe *f);
/*
 * Frame @f's text, as collapsed stacks and flame graphs show it
 * (vmstack_name_text), its kind's suffix not included.
 */
size_t vmstack_pframe_text(const struct vmstack_pframe *f, char *buf, size_t len);
/*
 * Count @count samples for the stack of frame ids @ids (root first) of
 * process @pid (0: unknown), thread @tid (0: of no thread in particular).
 * Stacks of two processes are told apart by their root frames.
 */
void vmstack_profile_add(struct vmstack_profile *p, const uint32_t *ids,
			 uint32_t n, uint32_t pid, uint32_t tid, uint64_t count);
/* Process @pid's name and cgroup, or NULL if the profile does not know it. */
const struct vmstack_pproc *vmstack_profile_proc(const struct vmstack_profile *p, uint32_t pid);

/* A process whose stacks are named: what names them, and its labels. */
struct vmstack_name_source {
	struct vmstack_process *proc;
	const char *comm;	/* the process's name: the root frame */
	const char *cgroup;	/* its cgroup, for labels; NULL: unknown */
};

/* How stacks are named. */
struct vmstack_name_opts {
	/*
	 * The source of process @pid's stacks in @src: 0, or -1 to leave
	 * them out. Asked once per process.
	 */
	int (*source)(void *arg, uint32_t pid, struct vmstack_name_source *src);
	void *arg;
	int root_pid;		/* root frame "COMM (PID)": stacks of several processes */
	int per_thread;		/* root COMM/TID, stacks by thread */
	const struct vmstack_threads *threads;	/* thread names, or NULL */
	int lines;		/* native frames with source lines and inlined calls */
	int no_demangle;	/* native names as their files spell them */
};

/*
 * Name every stack of @st, in one pass with the stacks bucketed by
 * process, each with its process's source: the root frame, user frames
 * outermost first, then kernel frames. With @o->lines a native frame
 * becomes its function and the functions inlined there, with their source
 * lines (vmstack_file_lines). Native names are demangled unless
 * @o->no_demangle.
 */
void vmstack_profile_name(struct vmstack_profile *p, const struct vmstack_stacks *st,
			  const struct vmstack_name_opts *o);
/* The stacks, in no particular order: @i from 0 to nslots, NULL skipped. */
static inline const struct vmstack_pstack *
vmstack_profile_slot(const struct vmstack_profile *p, size_t i)
{
	return p->slots[i];
}

#endif
