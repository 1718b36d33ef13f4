/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VMs of one recording: the interpreters detection finds in the
 * target's mappings and the descriptors texts give (--vm FILE, or what the
 * target registered with libvmstack in /tmp/vmstack-PID.vm). Each is
 * handed to the module in turn; the n-th accepted is VM n in the samples'
 * VM words, named by the runtime it came from.
 */
#ifndef VMSTACK_VM_ATTACH_H
#define VMSTACK_VM_ATTACH_H

#include <stddef.h>
#include <linux/vmstack.h>

#include "vm/desc3.h"

#include "maps.h"
#include "runtime.h"

struct vmstack_process;

struct vmstack_vm_attach {
	/* Set by the caller. */
	const char *tool;		/* prefixes messages */
	int pid;
	struct vmstack_process *proc;
	/* Which runtimes detection may find: NULL for all (--vm auto). */
	const struct vmstack_runtime *only;
	int detect;		/* 0: no detection (--vm none, --vm FILE) */
	/* Registers @d with the module: 0, or -1 with @msg set. */
	int (*add)(void *arg, const struct vmstack_vm_desc4 *d, char *msg,
		   size_t len);
	void *arg;
	/* What happened. */
	unsigned int n;			/* descriptors the module took */
	char label[256];		/* their builds' names, for the summary */
	int text_blocks;		/* of the target's file; -1: ignored */
	unsigned int unknown_said;	/* runtimes whose unknown build was reported */
	unsigned int unwalked_said;	/* unwalked.c's rows reported */
	struct {
		const struct vmstack_runtime *rt;
		const void *build;
	} found[VMSTACK_VM_MAX];	/* builds detected, for text namers */
	unsigned int nfound;
};

/* A new executable mapping: describe the interpreter it holds, if any. */
void vmstack_vm_attach_map(struct vmstack_vm_attach *a, const struct vmstack_map *m);
/*
 * The blocks of the descriptor text at @path not added yet. @from_target:
 * the target's own registration file, taken only if it belongs to the
 * target's user (or root) and nobody else may write it, as perf treats
 * /tmp/perf-PID.map; a torn last line (a write under way) waits for the
 * next call. 0, or -1 (said why on stderr).
 */
int vmstack_vm_attach_text(struct vmstack_vm_attach *a, const char *path,
			   int from_target);

#endif
