/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which modules this tool can use (uapi header, "Versions"): one of its
 * own ABI major. Majors differ in what VM_ADD takes (ABI 3: a structured
 * descriptor; ABI 4: a program), so either side refuses the other, and
 * says which to load.
 */
#ifndef VMSTACK_ABI_H
#define VMSTACK_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

/*
 * 0 if a module of ABI @major.@minor (version string @version) is one
 * this tool speaks to, else -EPROTO with why in @msg.
 */
int vmstack_abi_check(uint32_t major, uint32_t minor, const char *version, char *msg,
		      size_t len);

#endif
