/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM descriptors in text (Documentation/vm-descriptor.md): what a VM
 * registers through libvmstack (/tmp/vmstack-PID.vm) and what
 * vmstack-record --vm FILE reads.
 */
#ifndef VMSTACK_VM_FILE_H
#define VMSTACK_VM_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

/*
 * The text format's version: "vmstack-vm 3" opens a block. Version 2
 * blocks are read too (3 only added keys).
 */
#define VMSTACK_VM_TEXT_VERSION	3

/* How user space names a script frame's identity. */
enum vmstack_vm_namer_kind {
	VMSTACK_NAMER_CSTRING,	/* the identity is the address of its name */
	VMSTACK_NAMER_LUAJIT,
	VMSTACK_NAMER_LUA54,
};

struct vmstack_vm_text {
	char name[64];
	enum vmstack_vm_namer_kind namer;
	struct vmstack_vm_desc desc;
};

/*
 * Parse the descriptors in @text (blocks from "vmstack-vm 2" to "end";
 * an unfinished last block is left for later). Returns how many were
 * parsed into @out (at most @max), or -1 with @err set.
 */
int vmstack_vm_text_parse(const char *text, struct vmstack_vm_text *out,
			  size_t max, char *err, size_t errlen);

/* The NUL-terminated string at @ident in @pid (NAMER_CSTRING). */
int vmstack_cstring_name(int pid, uint64_t word, char *buf, size_t len);

#endif
