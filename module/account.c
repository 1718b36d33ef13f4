// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user accounts of the memory sessions hold besides their rings
 * (account.h). An account lives while a session of its user does; its
 * bytes are charged and uncharged by the parts that allocate (session
 * start, targets, unwind tables), all in process context.
 */
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/vmstack.h>
#include "account.h"

struct vmstack_account {
	struct list_head node;		/* in vmstack_accounts */
	kuid_t uid;
	unsigned int users;		/* sessions; under vmstack_accounts_lock */
	atomic64_t bytes;
};

/* The accounts in use: as many as users with a session open. */
static DEFINE_MUTEX(vmstack_accounts_lock);
static LIST_HEAD(vmstack_accounts);

struct vmstack_account *vmstack_account_get(kuid_t uid)
{
	struct vmstack_account *a;

	mutex_lock(&vmstack_accounts_lock);
	list_for_each_entry(a, &vmstack_accounts, node)
		if (uid_eq(a->uid, uid))
			goto found;
	a = kzalloc(sizeof(*a), GFP_KERNEL_ACCOUNT);
	if (!a)
		goto out;
	a->uid = uid;
	list_add(&a->node, &vmstack_accounts);
found:
	a->users++;
out:
	mutex_unlock(&vmstack_accounts_lock);
	return a;
}

void vmstack_account_put(struct vmstack_account *a)
{
	mutex_lock(&vmstack_accounts_lock);
	if (!--a->users) {
		list_del(&a->node);
		kfree(a);
	}
	mutex_unlock(&vmstack_accounts_lock);
}

int vmstack_account_charge(struct vmstack_account *a, u64 bytes,
			   struct netlink_ext_ack *extack)
{
	s64 cur = atomic64_read(&a->bytes);

	do {
		if (cur + bytes > VMSTACK_MAX_USER_BYTES) {
			NL_SET_ERR_MSG(extack,
				       "this user's vmstack sessions would hold over VMSTACK_MAX_USER_BYTES of kernel memory (per-CPU state, targets, unwind rules): close sessions or describe fewer processes");
			return -ENOSPC;
		}
	} while (!atomic64_try_cmpxchg(&a->bytes, &cur, cur + bytes));
	return 0;
}

void vmstack_account_uncharge(struct vmstack_account *a, u64 bytes)
{
	atomic64_sub(bytes, &a->bytes);
}
