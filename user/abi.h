/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a module of an older ABI minor takes (uapi header, "Versions"): a
 * newer tool sends it only what it knows and says what it will not do.
 */
#ifndef VMSTACK_ABI_H
#define VMSTACK_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

/*
 * Fit descriptor @d for a module of ABI minor @minor: clears the flags it
 * does not know and returns the length to send, or 0 when the descriptor
 * cannot be sent at all (it needs what the module lacks). *left_out:
 * what the module will not do for want of them, or NULL. (One row per
 * minor in abi.c: the next addition to the descriptor adds one.)
 */
size_t vmstack_abi_fit_desc(struct vmstack_vm_desc *d, uint32_t minor,
			    const char **left_out);

#endif
