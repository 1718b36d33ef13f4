/* SPDX-License-Identifier: GPL-2.0 */
/* The generic netlink family (netlink.c): the module's only entry. */
#ifndef _VMSTACK_NETLINK_H
#define _VMSTACK_NETLINK_H

/* The project's version: Kbuild passes the file VERSION's, the tools' too. */
#ifndef VMSTACK_VERSION
#error "VMSTACK_VERSION is not defined: build the module through Kbuild"
#endif

int vmstack_netlink_init(void);
void vmstack_netlink_exit(void);

#endif /* _VMSTACK_NETLINK_H */
