/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each user's sessions hold in the kernel besides their rings
 * (account.c): per-CPU state, targets, unwind rules, uploaded or being
 * uploaded. The rings count as the user's locked memory (ring.c), as
 * perf's buffers do; this is capped per user, VMSTACK_MAX_USER_BYTES
 * over all of a user's sessions, so that 64 sessions of one user cannot
 * hold gigabytes that only the memory cgroup would bound.
 */
#ifndef _VMSTACK_ACCOUNT_H
#define _VMSTACK_ACCOUNT_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct netlink_ext_ack;
struct vmstack_account;

/* @uid's account, made at its first session; NULL: out of memory. */
struct vmstack_account *vmstack_account_get(kuid_t uid);
/* A session of the account's user ends (what it held is uncharged first). */
void vmstack_account_put(struct vmstack_account *a);
/* Charge @bytes, or refuse past the cap (ENOSPC, and why in @extack). */
int vmstack_account_charge(struct vmstack_account *a, u64 bytes,
			   struct netlink_ext_ack *extack);
void vmstack_account_uncharge(struct vmstack_account *a, u64 bytes);

#endif /* _VMSTACK_ACCOUNT_H */
