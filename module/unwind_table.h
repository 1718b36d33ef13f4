/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's user unwind rules as UNWIND_ADD uploads them
 * (unwind_table.c; the handler's lookup is walk.h's). Callers hold s->lock.
 */
#ifndef _VMSTACK_UNWIND_TABLE_H
#define _VMSTACK_UNWIND_TABLE_H

#include <linux/types.h>
#include <linux/vmstack.h>

struct netlink_ext_ack;
struct vmstack_proc;
struct vmstack_session;

/* One chunk of an unwind table, as VMSTACK_CMD_UNWIND_ADD carries it. */
struct vmstack_uw_chunk {
	u64 start, end;
	u64 key;		/* 0: not shared */
	u32 total, first, nrows;
	const struct vmstack_uw_row *rows;
};

int vmstack_uw_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const struct vmstack_uw_chunk *c, struct netlink_ext_ack *extack);
/* Place the table uploaded under @key at @p's [@start, @end) (ENOENT: none). */
int vmstack_uw_place(struct vmstack_session *s, struct vmstack_proc *p,
		     u64 start, u64 end, u64 key, struct netlink_ext_ack *extack);
/* Free @p's rules now (@now: no handler can hold them) or after RCU. */
void vmstack_uw_free(struct vmstack_session *s, struct vmstack_proc *p, bool now);

#endif /* _VMSTACK_UNWIND_TABLE_H */
