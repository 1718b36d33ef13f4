/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack walk as pure code: native steps (unwind rules, signal
 * frames, frame pointers), VM frames and the merge rule. It reads the
 * target only through vmstack_read_user(), which the environment supplies:
 * in the module an NMI-safe user copy, in the host unit tests a fake address
 * space (tests/unit/walk_host.h). The binding is made at build time, not
 * through a function pointer: an indirect call per read would cost a
 * retpoline in the sample handler. Nothing here sleeps, allocates or locks.
 */
#ifndef _VMSTACK_WALK_H
#define _VMSTACK_WALK_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/sched/clock.h>
#include <linux/uaccess.h>

/* The end of user space (4- or 5-level paging alike). */
#define VMSTACK_USER_MAX	TASK_SIZE_MAX

/*
 * copy_from_user_nmi(): pagefaults disabled as in copy_from_user_nofault(),
 * and on every kernel the check that the CPU's page tables are current's
 * (nmi_uaccess_okay(): an NMI in the middle of switch_mm() has current =
 * the old task and CR3 = the next one's, whose memory a read would
 * return). copy_from_user_nofault() makes that check only since 5.19
 * (5.15 does not), and nmi_uaccess_okay() is not exported.
 */
static __always_inline bool vmstack_read_user(void *dst, unsigned long addr,
					      size_t len)
{
	return !copy_from_user_nmi(dst, (const void __user *)addr, len);
}

/* The handler's clock (sample.c's too): NMI-safe, monotonic on one CPU. */
static __always_inline u64 vmstack_walk_clock(void)
{
	return local_clock();
}
#else
#include "walk_host.h"
#endif
#include <linux/vmstack.h>

/*
 * One mapping's unwind rows, sorted by start (an offset in the mapping of
 * @span bytes). Shared by every process that maps the same file the same
 * way (the recorder names them by a key): unwind_table.c counts them.
 */
struct vmstack_uw_table {
	struct rcu_head rcu;		/* freed after a grace period */
	struct hlist_node key_node;	/* in the session's tables by key */
	u64 key;			/* 0: not shared */
	u64 span;
	u32 refs;			/* placements in sets (writers only) */
	u32 nrows;
	struct vmstack_uw_row rows[];
};

/* A table placed at one process's mapping [start, end). */
struct vmstack_uw_place {
	u64 start, end;
	struct vmstack_uw_table *t;
	bool dropped;			/* writers: leaves the set (unwind_table.c) */
};

/*
 * The placements in force, sorted by start and disjoint; published with
 * RCU. @gen numbers the sets a session publishes (from 1): a cache entry
 * of another set never matches, even one allocated where a freed set was.
 */
struct vmstack_uw_set {
	struct rcu_head rcu;
	u64 gen;
	u32 nr;
	struct vmstack_uw_place maps[];
};

/* The rule in force at @pc, or NULL (uw_rows.c). */
const struct vmstack_uw_row *vmstack_uw_lookup(const struct vmstack_uw_set *set,
					       unsigned long pc);

/*
 * The rows last looked up on one CPU, by address: a walk meets the same
 * functions sample after sample, and a hit skips both binary searches
 * (mappings, then rows). Direct-mapped; an entry holds for one set
 * (gen), so it is valid while the walk holds that set under RCU.
 */
#define VMSTACK_UW_CACHE	64	/* entries, a power of 2 */
struct vmstack_uw_cache {
	struct vmstack_uw_cache_entry {
		unsigned long pc;
		u64 gen;			/* 0: empty */
		const struct vmstack_uw_row *row;	/* NULL: no rule there */
	} e[VMSTACK_UW_CACHE];
};

/* vmstack_uw_lookup() through @cache (NULL: none); *@hit if it had it. */
const struct vmstack_uw_row *vmstack_uw_lookup_cached(const struct vmstack_uw_set *set,
						      struct vmstack_uw_cache *cache,
						      unsigned long pc, bool *hit);
/* NULL if @t's rows are usable, else why not. */
const char *vmstack_uw_rows_check(const struct vmstack_uw_table *t);

/*
 * No frame is further than this above the stack pointer. Generous: it only
 * rejects a frame pointer or CFA that is plainly not one.
 */
#define VMSTACK_USER_STACK_SPAN	(256UL << 20)

/*
 * Where the kernel's rt_sigframe keeps the interrupted registers: the
 * ucontext is at rsp once the handler returned into the trampoline, and
 * rbp, rbx, rdx, rax, rcx, rsp, rip follow each other in its sigcontext
 * from here (sample.c checks both against the kernel's structs).
 */
#define VMSTACK_SIGCONTEXT_RBP	(40 + 80)

/* The registers a native step moves. */
struct vmstack_user_regs {
	unsigned long ip, sp, bp;
};

/* Registers r8..r11 of a VM program, carried from one run to the next. */
#define VMSTACK_VM4_CARRY_FIRST	8
#define VMSTACK_VM4_CARRIED	4

/* One user walk: what it may use, and what it stores. */
struct vmstack_walk {
	const struct vmstack_uw_set *rules;	/* NULL: frame pointers only */
	struct vmstack_uw_cache *uw_cache;	/* this CPU's, or NULL */
	const struct vmstack_vm_desc4 *vms;	/* complete descriptors */
	u32 nr_vms;
	/* The sampled user registers, by enum vmstack_vm_reg ([0] is 0). */
	unsigned long regs[__VMSTACK_VM_REG_MAX];
	unsigned long ip, sp;			/* sampled; bp is regs[RBP] */
	u32 reads_left;				/* of the target's memory */
	u32 faults;				/* reads that failed */
	u64 deadline;				/* vmstack_walk_clock(): no read after it */
	/*
	 * Per VM: the JIT anchor last proved on this CPU in this process
	 * (vm_walk.c), or NULL for none kept; bit i of jit_dead: VM i's
	 * anchor of this sample found unreadable, not tried again; of
	 * jit_done: nothing left to try for VM i's compiled code.
	 */
	unsigned long *jit_seen;
	u8 jit_dead, jit_done;
	/*
	 * The sampled thread's id as it sees it (gettid()) and its TLS base
	 * (x86-64: the fs base): a program's r5 and r6. Per VM, the
	 * registers r8..r11 its last run in this sample left (what one
	 * activation tells the next), and the program steps the sample has
	 * run over all VMs (VMSTACK_VM4_SAMPLE_STEPS); zero at the start.
	 */
	u32 tid;
	unsigned long tls;
	u64 vm_carry[VMSTACK_VM_MAX][VMSTACK_VM4_CARRIED];
	u32 vm_steps;
	u64 *ips;
	unsigned int n, max;
	u16 flags;				/* VMSTACK_SF_* */
	u32 uw_lookups, uw_hits;		/* rule lookups, and cache hits */
};

/* How many reads between two looks at the clock (a power of 2). */
#define VMSTACK_CLOCK_READS	32

/*
 * Every read of the target, native and VM walks alike, spends the walk's
 * budget, and every VMSTACK_CLOCK_READS reads the clock is checked
 * against the deadline; once either is spent reads fail and the walk
 * ends, marked VMSTACK_SF_BUDGET: what a target's memory or descriptors
 * can make the handler do is bounded per sample, in reads and in time
 * (a read that faults costs an exception and its fixup: tens of times
 * one that succeeds). Failed reads are counted: the VM walks stop trying
 * past VMSTACK_MAX_VM_FAULTS (vm_walk.h).
 */
static inline bool vmstack_walk_read(struct vmstack_walk *w, void *dst,
				     unsigned long addr, size_t len)
{
	if (!w->reads_left) {
		w->flags |= VMSTACK_SF_BUDGET;
		return false;
	}
	if (!(--w->reads_left & (VMSTACK_CLOCK_READS - 1)) &&
	    vmstack_walk_clock() >= w->deadline) {
		w->reads_left = 0;
		w->flags |= VMSTACK_SF_BUDGET;
		return false;
	}
	if (vmstack_read_user(dst, addr, len))
		return true;
	w->faults++;
	return false;
}

/* Walk from the sampled registers; returns the number of words stored. */
unsigned int vmstack_walk_user(struct vmstack_walk *w);

/* What stands for one native frame in the stack, and how the walk goes on. */
enum vmstack_splice {
	/* Not a VM's frame: the native frame is shown, then a native step. */
	VMSTACK_SPLICE_NONE,
	/* A VM's frame kept as it is (after any cut marker): a native step. */
	VMSTACK_SPLICE_NATIVE,
	/* VM frames shown instead; a native step over it (F_NATIVE_STEP). */
	VMSTACK_SPLICE_STEP,
	/*
	 * VM frames, if any, shown instead; the walk goes on at *caller,
	 * the VM's native caller (ip 0: nowhere, the stack ends).
	 */
	VMSTACK_SPLICE_CALLER,
};

/*
 * The merge rule (vm_walk.c): if @r is a native frame of a VM (r->ip in
 * its code, or in code it compiled), store that activation's VM frames
 * and say how to go on. @at_leaf: @r is the sampled frame, whose sampled
 * registers (w->regs) may be used; @no_rules: r->ip has no unwind rules
 * (only then can it be compiled code).
 */
enum vmstack_splice vmstack_vm_splice(struct vmstack_walk *w,
				      const struct vmstack_user_regs *r,
				      bool at_leaf, bool no_rules,
				      struct vmstack_user_regs *caller);

#endif /* _VMSTACK_WALK_H */
