// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>

#include "abi.h"

int vmstack_abi_check(uint32_t major, uint32_t minor, const char *version, char *msg,
		      size_t len)
{
	if (major == VMSTACK_ABI_MAJOR)
		return 0;
	/* Name both majors: the fix is loading the module built with this tool. */
	snprintf(msg, len,
		 "the module speaks ABI %u (vmstack.ko %s, ABI %u.%u); this vmstack needs ABI %u: "
		 "load the module built with this tool",
		 major, version, major, minor, VMSTACK_ABI_MAJOR);
	return -EPROTO;
}
