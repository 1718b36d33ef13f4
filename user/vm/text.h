/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM descriptors in text (Documentation/vm-descriptor.md): what a VM
 * registers through libvmstack (/tmp/vmstack-PID.vm) and what
 * vmstack-record --vm FILE reads.
 */
#ifndef VMSTACK_VM_TEXT_H
#define VMSTACK_VM_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

#include "vm/desc3.h"

/*
 * The text format's version: "vmstack-vm 3" opens a block. Version 2
 * blocks are read too (3 only added keys).
 */
#define VMSTACK_VM_TEXT_VERSION	3

struct vmstack_runtime;

struct vmstack_vm_text {
	char name[64];
	/*
	 * Whose names its frames get ("namer RUNTIME"): a runtime of the
	 * table, by default cstring (the identity is the address of its name).
	 */
	const struct vmstack_runtime *namer;
	struct vmstack_vm_desc desc;
};

/*
 * Parse the descriptors in @text (blocks from "vmstack-vm 2" to "end";
 * an unfinished last block is left for later). Returns how many were
 * parsed into @out (at most @max), or -1 with @err set.
 */
int vmstack_vm_text_parse(const char *text, struct vmstack_vm_text *out,
			  size_t max, char *err, size_t errlen);

#endif
