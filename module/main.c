// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack: one stack per sample across native code and interpreters.
 * This file only ties the pieces together at load and unload.
 */
#include <linux/module.h>
#include "vmstack.h"

static int __init vmstack_init(void)
{
	int err;

	err = vmstack_session_init();
	if (err)
		return err;
	err = vmstack_netlink_init();
	if (err) {
		vmstack_session_exit();
		return err;
	}
	pr_info("vmstack %s loaded (ABI %d.%d)\n", VMSTACK_VERSION,
		VMSTACK_ABI_MAJOR, VMSTACK_ABI_MINOR);
	return 0;
}

/*
 * Every session holds a reference on the module through its file, so no
 * session can exist here: unloading is refused (EBUSY) while one is open.
 */
static void __exit vmstack_exit(void)
{
	vmstack_netlink_exit();
	vmstack_session_exit();
	pr_info("vmstack unloaded\n");
}

module_init(vmstack_init);
module_exit(vmstack_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Merged native and VM stack sampling");
MODULE_VERSION(VMSTACK_VERSION);
