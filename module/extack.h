/* SPDX-License-Identifier: GPL-2.0 */
/* Why a request was refused, for the extended ack. */
#ifndef _VMSTACK_EXTACK_H
#define _VMSTACK_EXTACK_H

#include <linux/netlink.h>

/*
 * An extended-ack message chosen at run time: NL_SET_ERR_MSG() takes only
 * a literal. @msg must outlive the request (a string constant).
 */
static inline void vmstack_set_err(struct netlink_ext_ack *extack,
				   const char *msg)
{
	do_trace_netlink_extack(msg);
	if (extack)
		extack->_msg = msg;
}

#endif /* _VMSTACK_EXTACK_H */
