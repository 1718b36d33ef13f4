/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's stand-in for the kernel environment of module/walk.h, so the
 * unit tests build the module's walker as it is: kernel integer types, and
 * vmstack_read_user() over a fake address space (tests/unit/fake_mem.c).
 */
#ifndef VMSTACK_WALK_HOST_H
#define VMSTACK_WALK_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/* x86-64 with 4-level paging, as the tests' fake stacks assume. */
#define VMSTACK_USER_MAX	((1UL << 47) - 4096)

bool vmstack_read_user(void *dst, unsigned long addr, size_t len);
/* A fake clock in ns: each read advances it (tests/unit/fake_mem.c). */
u64 vmstack_walk_clock(void);

#endif
