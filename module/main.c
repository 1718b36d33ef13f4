// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack: one stack per sample across native code and interpreters.
 * This file only ties the pieces together at load and unload.
 *
 * Each file calls only files below it, never one that calls back into it
 * (scripts/lint checks the objects' symbols for a loop):
 *
 *   main.c            load and unload
 *   netlink.c         the commands; the caller record (access.h)
 *   netlink_stats.c   SESSION_STATS's counters and histogram as attributes
 *   session.c         the registry of sessions, the file that owns one
 *   target.c          the target set, VM_ADD's descriptors
 *   unwind_table.c    UNWIND_ADD's rules, per process, shared per file
 *   access.c          who may start a session, whose memory it may read
 *   account.c         each user's kernel memory, capped
 *   events.c          perf events, CPU hotplug
 *   thread_events.c   TASK_EVENTS: an event on each thread of the targets
 *   sample.c          the overflow handler: the one that writes records
 *   unwind_kernel.c   the kernel stack (ORC)
 *   ring.c            the rings: the area, each CPU's ring
 *   walk.h            the user walk as pure code, also built on the host:
 *                     unwind_user.c, vm_walk.c (-> vm_prog.c,
 *                     vm_edges.c), uw_rows.c
 *   vm_prog_check.c   the check of VM_ADD's descriptors (target.c's; the
 *                     recorder builds it too)
 *
 * netlink.c -> session.c -> target.c -> access.c, unwind_table.c,
 *                                       vm_prog_check.c
 *                        -> events.c -> thread_events.c -> sample.c
 *                           sample.c -> ring.c, unwind_kernel.c, walk.h's files
 * (target.c gives a target added later its threads' events: thread_events.c)
 * (session.c, target.c and unwind_table.c charge account.c)
 * (and netlink.c reaches events.c, target.c and unwind_table.c directly,
 * and netlink_stats.c for the statistics it answers with).
 * Each subsystem's header says what it offers; session.h holds the
 * session as all of them see it.
 */
#include <linux/module.h>
#include <linux/vmstack.h>
#include "events.h"
#include "netlink.h"
#include "session.h"

static int __init vmstack_init(void)
{
	int err;

	err = vmstack_events_init();
	if (err)
		return err;
	err = vmstack_netlink_init();
	if (err) {
		vmstack_events_exit();
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
	vmstack_events_exit();
	vmstack_session_exit();
	pr_info("vmstack unloaded\n");
}

module_init(vmstack_init);
module_exit(vmstack_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Merged native and VM stack sampling");
MODULE_VERSION(VMSTACK_VERSION);
