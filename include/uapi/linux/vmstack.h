/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vmstack ABI: shared by vmstack.ko and the user-space tools.
 *
 * Control goes through the generic netlink family VMSTACK_GENL_NAME. Samples
 * come back through per-CPU ring buffers mapped from the session file
 * descriptor that VMSTACK_CMD_SESSION_START installs in the caller.
 *
 * Versions: VMSTACK_ABI_MAJOR changes when anything in this file changes
 * incompatibly (the tools refuse a module of another major);
 * VMSTACK_ABI_MINOR when something is added that an older peer can do
 * without: a new attribute, command, counter, sample flag, or descriptor
 * field at the end (a module takes descriptors from VMSTACK_VM_DESC_MIN_SIZE
 * bytes on and refuses a longer one whose unknown tail is not zero). A
 * tool may use an addition only when GET_STATUS reports a minor that has it.
 *
 * History:
 *   1    one number for everything; the VM descriptor went through three
 *        incompatible layouts under it (a version field inside).
 *   2.0  major/minor; VM descriptors taken by length, no version/size
 *        fields; VM words carry the descriptor's index and 57-bit values
 *        (5-level paging); one attribute policy per command (attributes of
 *        another command are refused, not ignored); GENL header and flags
 *        checked; per-CPU counters numbered from VMSTACK_CS_A_FIRST_COUNTER;
 *        defaults defined here.
 *   2.1  VMSTACK_VM_F_JIT_NEAR and the jit_link_off .. jit_near_max fields
 *        of the VM descriptor: compiled code entered from other compiled
 *        code before the VM stored its number.
 *   3.0  A session is named by its file descriptor (SESSION_FD) in every
 *        request, so only its holder can use it; SESSION_ID is for
 *        display. SESSION_START needs the right to read the target and
 *        answers the rate granted (FREQ); STATS answers totals, and per-CPU
 *        counters come as a dump; new counters: THROTTLED, BUDGET,
 *        NOT_DUMPABLE, COMPAT, OFFLINE_NS; sample flags BUDGET, NO_USER;
 *        limits on sessions, ring and rule memory (VMSTACK_MAX_*).
 *   3.1  VMSTACK_VM_F_REF32 (32-bit VM references: LuaJIT without GC64)
 *        and the jit_anchor_ptr field of the VM descriptor (compiled code
 *        that keeps no register on the VM's global state).
 *   3.2  VMSTACK_VM_STATE_THREAD (each thread's own state, found on the
 *        VM's list of them by thread id), VMSTACK_VM_F_TOP_AR,
 *        VMSTACK_VM_F_FUNC_IDENT, VMSTACK_VM_F_KIND_WORD, VMSTACK_VM_F_AR_CHAIN
 *        for VMs in plain C, and the thr_* and kind_word fields (CPython 3.11).
 *   3.3  TASK_EVENTS in SESSION_START: a target of one thread sampled by a
 *        per-task event its threads inherit (no interrupts where it does
 *        not run); counter OTHER (interrupts that found another process
 *        running: what one event per CPU costs where the target is not),
 *        UW_LOOKUPS and UW_HITS (unwind rule lookups, and how many a
 *        per-CPU cache answered).
 *   3.4  A session's target is a set of processes: TARGET_ADD and
 *        TARGET_DEL; UNWIND_ADD and VM_ADD take PID (which process's; the
 *        first target when left out); rule limits are over the whole set.
 *   3.5  Whole-machine sessions: ALL (every process, kernel threads
 *        included) or CGROUP_FD (a cgroup v2 directory and those below it)
 *        in SESSION_START instead of PID; CHILDREN with TASK_EVENTS (the
 *        event is inherited by child processes too); sample flag
 *        UNDESCRIBED (a process outside the target set: frame pointers
 *        only, no VM); UW_KEY in UNWIND_ADD (rows shared by the
 *        session's processes).
 *   3.6  VM frame checks (F_FUNC_CHECK, F_PC_CHECK, F_BUILTIN_KIND) and
 *        VMSTACK_VMW_UNVERIFIED words.
 *   4.0  VM_ADD takes struct vmstack_vm_desc4: a checked program per
 *        interpreter that the module runs at each activation, instead of
 *        ABI 3's struct vmstack_vm_desc of fields and flags (which the
 *        tools keep as their own structured form and compile to a
 *        program). The recording format and VM words are unchanged;
 *        VMSTACK_VMB_STEPS is new.
 *   4.1  F4_JIT_AREAS and the jit_area_off, jit_areas_max fields,
 *        appended to struct vmstack_vm_desc4: compiled code the id does
 *        not name (a garbage collector's step it called, an exit stub)
 *        is the VM's where one of its code areas holds it.
 *   4.2  poll() on the session's file: readable when a ring is filled to
 *        VMSTACK_RING_WAKEUP_SHIFT (before, its poll said always readable).
 *   4.3  TASK_EVENTS for a target of any number of threads (a running
 *        process): an event on each thread, made at SESSION_RESUME when
 *        the session started paused, then again for threads found later;
 *        TARGET_ADD in any TASK_EVENTS session (the process's threads get
 *        events); counters THREAD_EVENTS, THREADS_LATE and THREADS_OVER;
 *        VMSTACK_MAX_THREAD_EVENTS.
 *   4.4  EVENT VMSTACK_EVENT_SWITCHES: a record (VMSTACK_REC_SWITCH) at
 *        each switch-out of a sampled thread, for off-CPU profiles;
 *        sample flag PREEMPTED.
 *   4.5  EVENT VMSTACK_EVENT_WALL: both, in one session (two events on
 *        each thread or CPU), for wall-clock profiles: cpu-clock samples
 *        at FREQ and a record at each switch-out.
 */
#ifndef _UAPI_LINUX_VMSTACK_H
#define _UAPI_LINUX_VMSTACK_H

#include <linux/types.h>

#define VMSTACK_GENL_NAME	"vmstack"
#define VMSTACK_GENL_VERSION	3	/* the family's; the ABI numbers are below */
#define VMSTACK_ABI_MAJOR	4
#define VMSTACK_ABI_MINOR	5

/* Limits the module enforces (and the policies below spell out). */
#define VMSTACK_MAX_DEPTH	512	/* frames per stack, kernel or user */
#define VMSTACK_MIN_FREQ	1
#define VMSTACK_MAX_FREQ	100000	/* Hz */
#define VMSTACK_MIN_RING_PAGES	4	/* data pages per CPU, a power of 2 */
#define VMSTACK_MAX_RING_PAGES	4096
#define VMSTACK_MAX_SESSIONS	256	/* open at once, all users */
#define VMSTACK_MAX_USER_SESSIONS 64	/* open at once, per user */
#define VMSTACK_MAX_TARGETS	4096	/* processes in one session's set */
/* Threads given an event of their own in one TASK_EVENTS session (4.3). */
#define VMSTACK_MAX_THREAD_EVENTS	4096
/*
 * Kernel memory a user's sessions hold besides their rings (which count
 * as locked memory): per-CPU state, targets, unwind rules, uploaded or
 * being uploaded, over all of the user's sessions.
 */
#define VMSTACK_MAX_USER_BYTES	(256ULL << 20)
/*
 * Work per sample, whatever the target's memory or descriptors say: user
 * memory reads across the native and VM walks, and the time from the
 * handler's start to the walk's last read (a walk that runs out of
 * either is cut, VMSTACK_SF_BUDGET); reads that fault, which cost far
 * more than reads that succeed: past VMSTACK_MAX_VM_FAULTS the VM parts
 * of the sample are cut (VMSTACK_SF_VM_BROKEN) and the native walk goes
 * on; and the handler's time on each CPU: past
 * VMSTACK_HANDLER_MAX_PERCENT of a VMSTACK_THROTTLE_WINDOW_NS window,
 * further samples in that window are dropped and counted (THROTTLED).
 */
#define VMSTACK_MAX_READS		4096
#define VMSTACK_MAX_VM_FAULTS		16
#define VMSTACK_WALK_MAX_NS		500000ULL
/*
 * 4.4: a switch-out's walk runs with the CPU's runqueue locked, which
 * other CPUs' wake-ups spin on: a shorter deadline.
 */
#define VMSTACK_SWITCH_WALK_MAX_NS	200000ULL
#define VMSTACK_HANDLER_MAX_PERCENT	25
#define VMSTACK_THROTTLE_WINDOW_NS	100000000ULL

/* What SESSION_START takes when an attribute is left out. */
#define VMSTACK_DEFAULT_FREQ		999
/*
 * Words per stack, kernel and user each (a VM script frame takes two: its
 * identity and its PC); 256 since 3.2, when CPython's deep stacks (asyncio
 * under an import) overran 128.
 */
#define VMSTACK_DEFAULT_MAX_DEPTH	256
#define VMSTACK_DEFAULT_RING_PAGES	64

/*
 * Commands. The attribute tree of each request and reply:
 *
 * Each command accepts only the attributes listed for its request; any
 * other is refused (extended ack: "Unsupported attribute"), as are a
 * non-zero genlmsghdr.reserved and nlmsg flags other than REQUEST, ACK
 * and ECHO.
 *
 * VMSTACK_CMD_GET_STATUS (no privilege needed)
 *   request: -
 *   reply:   ABI_MAJOR, ABI_MINOR, MODULE_VERSION, NR_SESSIONS (those
 *            started from the asker's network namespace)
 *
 * VMSTACK_CMD_SESSION_START: CAP_SYS_ADMIN, or CAP_PERFMON and the right
 * to read the target: CAP_SYS_PTRACE, or the target's real, effective
 * and saved uids and gids all the caller's real ones, the target
 * dumpable, in the caller's user namespace and with no permitted
 * capability the caller lacks. Capabilities count in the initial user
 * namespace only, for the socket's opener and the caller alike. The
 * right is checked again at every sample: a target that lost it (a
 * setuid exec; ids or capabilities no longer the caller's) is not read
 * again until TARGET_ADD adds it anew (NOT_DUMPABLE counts its samples).
 *   request: PID (in the caller's PID namespace; a thread ID selects its
 *            whole process), or ALL (flag, 3.5), or CGROUP_FD (u32, 3.5: a
 *            descriptor of a cgroup v2 directory in the caller's table):
 *            exactly one of the three. With ALL or CGROUP_FD, every process
 *            that runs (in the cgroup or one below it) is sampled, the target
 *            set starts empty (TARGET_ADD describes a process: its rules and
 *            VMs), and a process outside the set is walked with frame
 *            pointers only (sample flag UNDESCRIBED); a kernel thread has
 *            kernel frames only. Its user stack is not read while it is not
 *            dumpable unless the caller has CAP_SYS_PTRACE or CAP_SYS_ADMIN.
 *            FREQ, EVENT, STACKS, MAX_DEPTH,
 *            RING_PAGES (VMSTACK_DEFAULT_* when left out), PAUSED (flag:
 *            sample only after SESSION_RESUME, so unwind rules can be
 *            uploaded first), TASK_EVENTS (flag, 3.3: sample through an
 *            event on each thread of the target, inherited by every thread
 *            it creates, instead of one event per CPU filtered by process;
 *            it fires only where the target runs. The events are made
 *            enabled at SESSION_RESUME (or at once when not PAUSED): an
 *            inherited event starts in the state its parent has when the
 *            thread is made. A thread that has no event of the session is
 *            given one, at resume and again 10 ms, 100 ms and 1 s later,
 *            which finds a thread whose creation was under way during the
 *            first round; a thread made by one that has an event inherits
 *            it and is given none (4.3; 3.3 to 4.2 refused a target of
 *            more than one thread). At most VMSTACK_MAX_THREAD_EVENTS
 *            events made are held at once (those of exited threads are
 *            released at the next attach or scan; threads past it are
 *            counted, THREADS_OVER); an error at resume leaves the
 *            session sampling the threads given one), CHILDREN (flag,
 *            3.5, with TASK_EVENTS: the event is inherited by the
 *            processes the target starts, and theirs; a process not in
 *            the set is walked as with ALL, and TARGET_ADD may describe
 *            it)
 *   reply:   SESSION_ID, SESSION_FD, NR_CPUS, RING_PAGES, FREQ (the rate
 *            asked for: perf's throttle holds every event to
 *            kernel.perf_event_max_sample_rate, per tick; the module does
 *            not read the sysctl, and earlier ones answered it when lower)
 *   The session lives as long as its file does: SESSION_FD and the rings
 *   mapped from it (a mapping is not inherited by fork). Closing the fd
 *   stops sampling at once; the rings stay readable until unmapped; the
 *   last of the two frees everything. Ring memory is charged to the
 *   caller's memory cgroup and to its user's locked memory
 *   (RLIMIT_MEMLOCK, unless CAP_IPC_LOCK), as perf charges its buffers.
 *   At most VMSTACK_MAX_SESSIONS sessions, VMSTACK_MAX_USER_SESSIONS per
 *   user.
 *
 * Every other command names its session by SESSION_FD, a descriptor in
 * the caller's own table: only the holder of a session can use it.
 *
 * VMSTACK_CMD_SESSION_STATS
 *   request: SESSION_FD
 *   reply:   SESSION_ID, NR_CPUS, COUNTERS (nested: every counter of enum
 *            vmstack_cpu_stats_attr, summed over the CPUs), HANDLER_HIST
 *            (all CPUs together)
 *   With NLM_F_DUMP: messages of CPU_STATS (nested: CPU and every
 *   counter), one per possible CPU, as many messages as that takes.
 *
 * VMSTACK_CMD_SESSION_STOP
 *   request: SESSION_FD
 *   Stops sampling; the rings stay readable.
 *
 * VMSTACK_CMD_TARGET_ADD (3.4)
 *   request: SESSION_FD, PID (required; in the caller's PID namespace)
 *   Adds the process to the session's targets, with the same right to
 *   read it that SESSION_START's target needs. It has its own unwind
 *   rules and VMs (UNWIND_ADD, VM_ADD with its PID). A target that exited
 *   keeps its place until TARGET_DEL; a new process of the same number
 *   takes it over (EEXIST for the same process, unless the handler
 *   stopped reading it: it is judged anew). At most
 *   VMSTACK_MAX_TARGETS (ENOSPC), and VMSTACK_MAX_USER_BYTES over the
 *   caller's user's sessions (ENOSPC). In a TASK_EVENTS session (4.3;
 *   before, only with CHILDREN) its threads are given events as the first
 *   target's are (once sampling has been resumed, else then).
 *
 * VMSTACK_CMD_TARGET_DEL (3.4)
 *   request: SESSION_FD, PID (the number it was added with)
 *   Forgets a target, its rules and VMs (ENOENT if it is not one).
 *
 * VMSTACK_CMD_VM_ADD
 *   request: SESSION_FD, PID (3.4: which target's; the first when left
 *            out), VM_DESC (4.0: struct vmstack_vm_desc4, from
 *            VMSTACK_VM4_DESC_MIN_SIZE to VMSTACK_VM4_DESC_MAX_SIZE bytes,
 *            its size field equal to the length; bytes past the module's
 *            struct must be 0)
 *   Describes a VM in the target whose frames are merged into its stacks.
 *   Every field and instruction is checked; at most VMSTACK_VM_MAX per
 *   target. The n-th descriptor accepted (from 0) is VM n in VM words.
 *
 * VMSTACK_CMD_SESSION_RESUME
 *   request: SESSION_FD
 *   Starts sampling in a session started with PAUSED.
 *
 * VMSTACK_CMD_UNWIND_ADD
 *   request: SESSION_FD, PID (3.4: which target's; the first when left
 *            out), UW_START, UW_END, UW_TOTAL, UW_FIRST, UW_ROWS
 *   Unwind rules for the user mapping [UW_START, UW_END) of the target,
 *   replacing the rules of any mapping it overlaps. The table has UW_TOTAL
 *   rows (struct vmstack_uw_row, sorted by start) and comes in chunks, in
 *   order: UW_ROWS holds rows UW_FIRST... (an attribute holds < 64 KiB).
 *   The table takes effect with its last chunk. The module walks user
 *   stacks with these rules where they exist, frame pointers elsewhere.
 *   Tables of mappings the target no longer has are freed then too. At
 *   most VMSTACK_UW_MAX_BYTES of rules and VMSTACK_UW_MAX_MAPS mappings
 *   per session (ENOSPC beyond); a table counts whole from its first
 *   chunk (UW_TOTAL rows), and against VMSTACK_MAX_USER_BYTES too.
 *   UW_KEY (3.5, non-zero): the rows are known under this key too, the
 *   tool's name for them (a file mapped at one offset and length). A
 *   request with UW_KEY and without UW_TOTAL, UW_FIRST and UW_ROWS places
 *   the rows uploaded under that key at [UW_START, UW_END) of this target
 *   (ENOENT if the session has none: upload them; EINVAL if they were
 *   uploaded for a mapping of another length): rows shared by processes
 *   count once against VMSTACK_UW_MAX_BYTES, and are freed when the last
 *   placement goes. The newest upload under a key is the one placed.
 *   reply:   UW_BYTES (memory the session's rules now take, tables being
 *            uploaded included)
 */
enum vmstack_cmd {
	VMSTACK_CMD_UNSPEC,
	VMSTACK_CMD_GET_STATUS,
	VMSTACK_CMD_SESSION_START,
	VMSTACK_CMD_SESSION_STATS,
	VMSTACK_CMD_SESSION_STOP,
	VMSTACK_CMD_UNWIND_ADD,
	VMSTACK_CMD_SESSION_RESUME,
	VMSTACK_CMD_VM_ADD,
	VMSTACK_CMD_TARGET_ADD,		/* 3.4 */
	VMSTACK_CMD_TARGET_DEL,		/* 3.4 */
	__VMSTACK_CMD_MAX,
};
#define VMSTACK_CMD_MAX (__VMSTACK_CMD_MAX - 1)

enum vmstack_attr {
	VMSTACK_A_UNSPEC,
	VMSTACK_A_ABI_MAJOR,		/* u32 */
	VMSTACK_A_MODULE_VERSION,	/* string */
	VMSTACK_A_NR_SESSIONS,		/* u32 */
	VMSTACK_A_PID,			/* u32 */
	VMSTACK_A_FREQ,			/* u32, Hz */
	VMSTACK_A_EVENT,		/* u32, enum vmstack_event */
	VMSTACK_A_STACKS,		/* u32, VMSTACK_STACK_* bits */
	VMSTACK_A_MAX_DEPTH,		/* u32 */
	VMSTACK_A_RING_PAGES,		/* u32, data pages per CPU */
	VMSTACK_A_SESSION_ID,		/* u32 */
	VMSTACK_A_SESSION_FD,		/* u32 */
	VMSTACK_A_NR_CPUS,		/* u32, rings in the mapping */
	VMSTACK_A_RETIRED_STATS,	/* ABI 2's per-CPU nest; not used since 3.0 */
	VMSTACK_A_PAD,
	VMSTACK_A_HANDLER_HIST,		/* binary: __u64[VMSTACK_HIST_BUCKETS] */
	VMSTACK_A_UW_START,		/* u64 */
	VMSTACK_A_UW_END,		/* u64 */
	VMSTACK_A_UW_ROWS,		/* binary: struct vmstack_uw_row[] */
	VMSTACK_A_UW_BYTES,		/* u64 */
	VMSTACK_A_UW_TOTAL,		/* u32 */
	VMSTACK_A_UW_FIRST,		/* u32 */
	VMSTACK_A_PAUSED,		/* flag */
	VMSTACK_A_VM_DESC,		/* binary: struct vmstack_vm_desc */
	VMSTACK_A_ABI_MINOR,		/* u32 */
	VMSTACK_A_COUNTERS,		/* nested, VMSTACK_CS_A_<counter>... */
	VMSTACK_A_CPU_STATS,		/* nested, VMSTACK_CS_A_* (stats dump) */
	VMSTACK_A_TASK_EVENTS,		/* flag (3.3) */
	VMSTACK_A_ALL,			/* flag (3.5) */
	VMSTACK_A_CGROUP_FD,		/* u32 (3.5) */
	VMSTACK_A_CHILDREN,		/* flag (3.5) */
	VMSTACK_A_UW_KEY,		/* u64 (3.5) */
	__VMSTACK_A_MAX,
};
#define VMSTACK_A_MAX (__VMSTACK_A_MAX - 1)

/*
 * Per-CPU counters, a u64 attribute each, numbered from
 * VMSTACK_CS_A_FIRST_COUNTER on (new ones go at the end: a minor
 * addition). For every CPU: TAKEN = WRITTEN + DROPPED, where TAKEN counts
 * the samples that hit the target process.
 */
enum vmstack_cpu_stats_attr {
	VMSTACK_CS_A_UNSPEC,
	VMSTACK_CS_A_CPU,		/* u32 */
	VMSTACK_CS_A_PAD,
	VMSTACK_CS_A_TAKEN,
	VMSTACK_CS_A_WRITTEN,
	VMSTACK_CS_A_DROPPED,		/* ring full, a nested sample, or THROTTLED */
	VMSTACK_CS_A_USER_FAULTS,	/* a user stack read failed */
	VMSTACK_CS_A_TRUNCATED,		/* a stack hit the depth cap */
	VMSTACK_CS_A_BAD_TAIL,		/* reader wrote an impossible tail */
	VMSTACK_CS_A_HANDLER_NS,	/* time in the handler, target samples */
	VMSTACK_CS_A_FRAMES,		/* frames stored (kernel + user) */
	VMSTACK_CS_A_VM_ERRORS,		/* VM stacks cut by bad VM data */
	VMSTACK_CS_A_THROTTLED,		/* dropped: the handler's time budget */
	VMSTACK_CS_A_BUDGET,		/* user stacks cut by the read or time budget */
	VMSTACK_CS_A_NOT_DUMPABLE,	/* no user stack: target not dumpable */
	VMSTACK_CS_A_COMPAT,		/* no user stack: a 32-bit task */
	VMSTACK_CS_A_OFFLINE_NS,	/* time this CPU was offline */
	VMSTACK_CS_A_OTHER,		/* 3.3: interrupts in another process */
	VMSTACK_CS_A_UW_LOOKUPS,	/* 3.3: unwind rule lookups */
	VMSTACK_CS_A_UW_HITS,		/* 3.3: of them, found in the CPU's cache */
	VMSTACK_CS_A_VM_UNVERIFIED,	/* 3.6: VM stacks with an unverified frame */
	VMSTACK_CS_A_THREAD_EVENTS,	/* 4.3: TASK_EVENTS made on threads */
	VMSTACK_CS_A_THREADS_LATE,	/* 4.3: of them, for threads found late */
	VMSTACK_CS_A_THREADS_OVER,	/* 4.3: threads given none: the limit */
	__VMSTACK_CS_A_MAX,
};
#define VMSTACK_CS_A_MAX (__VMSTACK_CS_A_MAX - 1)
#define VMSTACK_CS_A_FIRST_COUNTER	VMSTACK_CS_A_TAKEN
#define VMSTACK_NR_COUNTERS	(__VMSTACK_CS_A_MAX - VMSTACK_CS_A_FIRST_COUNTER)
/* A counter's index in arrays of VMSTACK_NR_COUNTERS, from its attribute. */
#define VMSTACK_COUNTER(attr)	((attr) - VMSTACK_CS_A_FIRST_COUNTER)

/*
 * Handler time histogram: bucket b counts samples whose handler took t ns
 * with vmstack_hist_bucket(t) == b: 8 buckets per power of two, so a
 * bucket's width is 1/8 of its lower bound (12.5% resolution).
 */
#define VMSTACK_HIST_SUB_BITS	3
/* Buckets for every 64-bit value: 8 exact ones, then 8 per octave. */
#define VMSTACK_HIST_BUCKETS	((64 - VMSTACK_HIST_SUB_BITS + 1) << VMSTACK_HIST_SUB_BITS)

static inline unsigned int vmstack_hist_bucket(__u64 ns)
{
	unsigned int msb = 63 - __builtin_clzll(ns | 1);

	if (msb < VMSTACK_HIST_SUB_BITS)
		return (unsigned int)ns;
	return (msb - VMSTACK_HIST_SUB_BITS + 1) << VMSTACK_HIST_SUB_BITS |
	       ((ns >> (msb - VMSTACK_HIST_SUB_BITS)) &
		((1 << VMSTACK_HIST_SUB_BITS) - 1));
}

/* The smallest ns value that falls in bucket b. */
static inline __u64 vmstack_hist_lower(unsigned int b)
{
	unsigned int e = b >> VMSTACK_HIST_SUB_BITS;
	unsigned int m = b & ((1 << VMSTACK_HIST_SUB_BITS) - 1);

	if (!e)
		return m;
	return (__u64)((1 << VMSTACK_HIST_SUB_BITS) | m) << (e - 1);
}

enum vmstack_event {
	VMSTACK_EVENT_CPU_CLOCK,	/* software; works everywhere */
	VMSTACK_EVENT_CYCLES,		/* hardware; needs a PMU */
	/*
	 * 4.4: every switch-out of a sampled thread (FREQ is not used),
	 * written as VMSTACK_REC_SWITCH: the stack where it stops running,
	 * walked within VMSTACK_SWITCH_WALK_MAX_NS. Idle tasks are not
	 * recorded.
	 */
	VMSTACK_EVENT_SWITCHES,
	/*
	 * 4.5: CPU_CLOCK's samples and SWITCHES' records of the same
	 * threads, in one session: where they run and where they wait, for
	 * a wall-clock profile. Two events on each thread (or CPU) count
	 * against VMSTACK_MAX_THREAD_EVENTS.
	 */
	VMSTACK_EVENT_WALL,
	__VMSTACK_EVENT_MAX,
};
#define VMSTACK_EVENT_MAX (__VMSTACK_EVENT_MAX - 1)

#define VMSTACK_STACK_KERNEL	(1U << 0)
#define VMSTACK_STACK_USER	(1U << 1)
#define VMSTACK_STACK_ALL	(VMSTACK_STACK_KERNEL | VMSTACK_STACK_USER)

/*
 * The mapping of a session fd: for each of NR_CPUS CPUs, in CPU order, one
 * control page (struct vmstack_ring_ctl) followed by RING_PAGES data pages.
 * Offsets head and tail run freely; a record starts at (offset & (size - 1)).
 * The kernel writes head (release) after a whole record is in place; the
 * reader consumes records from tail to head, then writes tail (release).
 * Records never wrap: a VMSTACK_REC_PAD record fills the end of the buffer
 * when the next record would not fit.
 *
 * The session's file polls readable (POLLIN, 4.2) while a ring holds at
 * least 1 / 2^VMSTACK_RING_WAKEUP_SHIFT of its size: a reader sleeps in
 * poll() until then, instead of draining on a timer sized for the worst.
 * Once the session is stopped it polls EPOLLHUP too.
 */
#define VMSTACK_RING_WAKEUP_SHIFT	2
struct vmstack_ring_ctl {
	__u64 head;		/* written by the kernel */
	__u64 tail;		/* written by the reader */
	__u64 data_size;	/* bytes of data, a power of 2 */
	__u32 cpu;
	__u16 abi_major;
	__u16 abi_minor;
};

enum vmstack_rec_type {
	VMSTACK_REC_PAD = 1,
	VMSTACK_REC_SAMPLE = 2,
	VMSTACK_REC_SWITCH = 3,		/* 4.4: a sample, then vmstack_rec_switch_tail */
};

/*
 * One unwind rule, reduced from the CFI (.eh_frame) of a mapped file. It
 * holds from start (an offset from the mapping's start) up to the next
 * row's start. The return address is always at CFA - 8.
 */
enum vmstack_uw_cfa {
	VMSTACK_UW_FP,		/* no usable rule here: use the frame pointer */
	VMSTACK_UW_CFA_RSP,	/* CFA = rsp + cfa_off */
	VMSTACK_UW_CFA_RBP,	/* CFA = rbp + cfa_off */
	VMSTACK_UW_SIGNAL,	/* signal trampoline: registers in the ucontext at rsp */
	__VMSTACK_UW_MAX,
};

enum vmstack_uw_rbp {
	VMSTACK_UW_RBP_SAME,	/* the caller's rbp is still in rbp */
	VMSTACK_UW_RBP_SAVED,	/* the caller's rbp is at CFA + rbp_off */
};

struct vmstack_uw_row {
	__u32 start;
	__s32 cfa_off;
	__s16 rbp_off;
	__u8 cfa;		/* enum vmstack_uw_cfa */
	__u8 rbp;		/* enum vmstack_uw_rbp */
};

#define VMSTACK_UW_MAX_ROWS	(1U << 22)	/* per mapping */
#define VMSTACK_UW_CHUNK_ROWS	4096		/* per message, at most */
#define VMSTACK_UW_MAX_BYTES	(64U << 20)	/* per session */
#define VMSTACK_UW_MAX_MAPS	16384		/* mappings with rules, per session */

/* VMs per session (VM n in VM words: the n-th taken), frames per activation. */
#define VMSTACK_VM_MAX		4	/* descriptors per session */
#define VMSTACK_VM_MAX_FRAMES	256	/* VM frames per activation, at most */

/*
 * Registers for LDREG and jit_reg (and ABI 3's top_reg / pc_reg). RBP is known at every native frame (the
 * unwinder recovers it); the others only in the sampled frame.
 */
enum vmstack_vm_reg {
	VMSTACK_VM_REG_NONE,
	VMSTACK_VM_REG_RAX, VMSTACK_VM_REG_RBX, VMSTACK_VM_REG_RCX,
	VMSTACK_VM_REG_RDX, VMSTACK_VM_REG_RSI, VMSTACK_VM_REG_RDI,
	VMSTACK_VM_REG_R12, VMSTACK_VM_REG_R13, VMSTACK_VM_REG_R14,
	VMSTACK_VM_REG_R15, VMSTACK_VM_REG_RBP,
	__VMSTACK_VM_REG_MAX,
};

#define VMSTACK_VM_JIT_NEAR_MAX		32	/* F4_JIT_NEAR: objects tried */
#define VMSTACK_VM_JIT_AREAS_MAX	64	/* F4_JIT_AREAS: areas tried */
#define VMSTACK_VM_JIT_AREA_MAX		(1UL << 30)	/* F4_JIT_AREAS: bytes per area */

/*
 * VM descriptor, ABI 4 (struct vmstack_vm_desc4): one vocabulary for every
 * interpreter. What differs between runtimes (where a thread's state is,
 * how frames link, what ends an activation, what a frame shows) is a
 * program the module runs, not a flag it knows: a small register machine
 * whose every instruction the module checks at VM_ADD and whose every run
 * is bounded (instructions executed, frames shown, reads, faults, time).
 * What is the module's own stays fixed: where an activation is (a native
 * frame whose PC lies in one of the VM's entry ranges), the way back to
 * native code (the caller's registers the VM's entry saved, or the native
 * frame's own unwind rules), and the lookup of compiled code (F4_JIT, as
 * ABI 3's F_JIT). Documentation/descriptor4.md gives the reasons and one
 * program per runtime.
 *
 * A run. At a native frame whose PC lies in an entry range (or, F4_JIT, in
 * code the VM compiled), the module runs the descriptor's program with:
 *   r0  VMSTACK_VM4_AT_NATIVE, or VMSTACK_VM4_AT_JIT
 *   r1  the native frame's sp         (AT_JIT: the anchor)
 *   r2  the native frame's bp         (AT_JIT: the compiled code object)
 *   r3  the native frame's pc
 *   r4  1 in the sampled frame, else 0
 *   r5  the sampled thread's id, as gettid() returns it in the thread
 *   r6  the sampled thread's TLS base (x86-64: its fs base)
 *   r7  0
 *   r8..r11  as the previous run of this descriptor in this sample left
 *       them (0 in its first): what one activation tells the next (the
 *       outer activation's top frame, a thread state looked up once)
 *   r12..r15  0
 * The program emits the activation's frames, innermost first (EMIT_*),
 * and ends with EXIT: its immediate says what the native walk does next
 * (enum vmstack_vm4_exit); r1 at EXIT is the activation record (AR) the
 * caller's registers are read from (caller_*_off), 0 for none.
 *
 * Reads: LD* read the target through the sample's read budget, nofault;
 * a read that fails (unless the load has a fail edge) ends the run as
 * EXIT(CUT + VMSTACK_VMB_READ), or
 * (FAULTS) when the sample's VM reads faulted VMSTACK_MAX_VM_FAULTS
 * times, or (BUDGET) when its reads or time are spent. A run executes at
 * most VMSTACK_VM4_RUN_STEPS instructions and a sample at most
 * VMSTACK_VM4_SAMPLE_STEPS over all runs (then CUT + STEPS); it emits at
 * most max_frames frames (then CUT + DEPTH). Jumps go either way: loops
 * (a thread list, a frame chain) are bounded by those counts, not by the
 * verifier.
 */
#define VMSTACK_VM4_PROG_MAX		256	/* instructions per program */
#define VMSTACK_VM4_CONSTS		16	/* 64-bit constants per descriptor */
#define VMSTACK_VM4_RANGES		4	/* entry ranges per descriptor */
#define VMSTACK_VM4_RUN_STEPS		8192
#define VMSTACK_VM4_SAMPLE_STEPS	32768
#define VMSTACK_VM4_REGS		16

/* r0 at the start of a run: where the activation was found. */
enum vmstack_vm4_at {
	VMSTACK_VM4_AT_NATIVE,		/* a native frame in an entry range */
	VMSTACK_VM4_AT_JIT,		/* code the VM compiled (F4_JIT) */
};

/*
 * Why a VM part is cut: the value of a VMSTACK_VMW_BROKEN word, and
 * EXIT's immediate minus VMSTACK_VM4_X_CUT.
 */
enum vmstack_vm_broken {
	VMSTACK_VMB_STATE = 1,	/* no sane VM state: the native frame stays */
	VMSTACK_VMB_FRAME,	/* a frame where none can be */
	VMSTACK_VMB_READ,	/* VM memory unreadable */
	VMSTACK_VMB_DEPTH,	/* more frames than max_frames */
	VMSTACK_VMB_BUDGET,	/* the sample's read or time budget is spent */
	VMSTACK_VMB_CHECK,	/* a frame fails a check of the program's */
	VMSTACK_VMB_FAULTS,	/* the sample's VM reads faulted too often */
	VMSTACK_VMB_STEPS,	/* (4.0) the run's or the sample's steps are spent */
	__VMSTACK_VMB_MAX,
};

/* EXIT's immediate: what the native walk does after the activation. */
enum vmstack_vm4_exit {
	/*
	 * The activation's frames are shown. F4_NATIVE_STEP: the native
	 * frame's own unwind rules lead on (a VM in plain C); else the
	 * caller's registers at r1 + caller_*_off (AT_JIT: always), and
	 * where those fail the native frame stays.
	 */
	VMSTACK_VM4_X_SHOWN,
	/*
	 * The activation has no VM frames of its own (not linked yet, or
	 * unlinked; a protected C call): F4_NATIVE_STEP keeps the native
	 * frame, else it is dropped and the walk goes on from the caller's
	 * registers at r1, where those can be read.
	 */
	VMSTACK_VM4_X_EMPTY,
	/*
	 * X_CUT + reason (enum vmstack_vm_broken): a VMSTACK_VMW_BROKEN word
	 * ends the frames shown; then as X_SHOWN, except for
	 * VMSTACK_VMB_STATE, where the native frame stays.
	 */
	VMSTACK_VM4_X_CUT = 16,
	__VMSTACK_VM4_X_MAX = VMSTACK_VM4_X_CUT + __VMSTACK_VMB_MAX,
};

/*
 * Instructions: 8 bytes, as BPF's, without bit-fields (whose order the
 * compiler chooses): regs holds dst in its low and src in its high four
 * bits (registers 0..15); off is a signed count of instructions to jump
 * by, from the next one; imm a signed 32-bit value. "v" below is src, or
 * imm (sign-extended to 64 bits) in the _K form of an opcode.
 */
struct vmstack_vm_insn {
	__u8 op;		/* enum vmstack_vm4_op */
	__u8 regs;		/* dst | src << 4 */
	__s16 off;
	__s32 imm;
};
#define VMSTACK_VM4_REGS_OF(dst, src)	((__u8)((dst) | (src) << 4))

enum vmstack_vm4_op {
	/* ALU, 64 bits, unsigned: dst = dst OP v (MOV: dst = v). */
	VMSTACK_VM4_MOV, VMSTACK_VM4_MOV_K,
	VMSTACK_VM4_ADD, VMSTACK_VM4_ADD_K,
	VMSTACK_VM4_SUB, VMSTACK_VM4_SUB_K,
	VMSTACK_VM4_MUL, VMSTACK_VM4_MUL_K,
	VMSTACK_VM4_AND, VMSTACK_VM4_AND_K,
	VMSTACK_VM4_OR, VMSTACK_VM4_OR_K,
	VMSTACK_VM4_XOR, VMSTACK_VM4_XOR_K,
	VMSTACK_VM4_LSH, VMSTACK_VM4_LSH_K,	/* by v & 63 */
	VMSTACK_VM4_RSH, VMSTACK_VM4_RSH_K,	/* logical, by v & 63 */
	VMSTACK_VM4_ARSH_K,			/* arithmetic, by imm & 63 */
	/* dst = consts[imm] */
	VMSTACK_VM4_LDC,
	/* dst = the sampled register imm (enum vmstack_vm_reg; NONE: 0) */
	VMSTACK_VM4_LDREG,
	/*
	 * dst = the 1, 2, 4 or 8 bytes at src + imm, zero-extended; _S:
	 * sign-extended. off != 0 is a fail edge: a read that fails (fault,
	 * fault cap, budget or time spent) leaves dst as it was and jumps by
	 * off instead of ending the run (the failure still counts).
	 */
	VMSTACK_VM4_LD8, VMSTACK_VM4_LD16, VMSTACK_VM4_LD32, VMSTACK_VM4_LD64,
	VMSTACK_VM4_LD8_S, VMSTACK_VM4_LD16_S, VMSTACK_VM4_LD32_S,
	/* pc += off; and the conditional jumps, if dst CMP v (GT..LE unsigned) */
	VMSTACK_VM4_JA,
	VMSTACK_VM4_JEQ, VMSTACK_VM4_JEQ_K,
	VMSTACK_VM4_JNE, VMSTACK_VM4_JNE_K,
	VMSTACK_VM4_JGT, VMSTACK_VM4_JGT_K,
	VMSTACK_VM4_JGE, VMSTACK_VM4_JGE_K,
	VMSTACK_VM4_JLT, VMSTACK_VM4_JLT_K,
	VMSTACK_VM4_JLE, VMSTACK_VM4_JLE_K,
	VMSTACK_VM4_JSET, VMSTACK_VM4_JSET_K,	/* dst & v */
	VMSTACK_VM4_JSLT_K,			/* signed: (s64)dst < imm */
	/*
	 * Frames, innermost first. EMIT_SCRIPT: a script frame, identity
	 * dst, PC src (0: unknown), a VMSTACK_VMW_SCRIPT word and its PC;
	 * EMIT_BUILTIN: VMSTACK_VMW_BUILTIN | dst; EMIT_UNVERIFIED:
	 * VMSTACK_VMW_UNVERIFIED | imm (enum vmstack_vmw_unverified), which
	 * also sets VMSTACK_SF_VM_UNVERIFIED; EMIT_JIT: VMSTACK_VMW_JIT |
	 * dst. Each counts against max_frames.
	 */
	VMSTACK_VM4_EMIT_SCRIPT,
	VMSTACK_VM4_EMIT_BUILTIN,
	VMSTACK_VM4_EMIT_UNVERIFIED,
	VMSTACK_VM4_EMIT_JIT,
	/*
	 * MARK remembers how many words are emitted; UNDO drops the words
	 * emitted since (and the unverified flag they set): a walk begun
	 * from a register that proves stale starts over from the state.
	 */
	VMSTACK_VM4_MARK,
	VMSTACK_VM4_UNDO,
	/* End the run: imm is enum vmstack_vm4_exit. */
	VMSTACK_VM4_EXIT,
	__VMSTACK_VM4_OP_MAX,
};

/* A native frame whose pc is in [start, end) is an activation of the VM. */
struct vmstack_vm4_range {
	__u64 start, end;
};

/* The native frame is left as its own unwind rules say (a VM in plain C). */
#define VMSTACK_VM4_F_NATIVE_STEP	(1U << 0)
/* Compiled code: the jit_* fields, as ABI 3's F_JIT. */
#define VMSTACK_VM4_F_JIT		(1U << 1)
/* ... and ABI 3's F_JIT_NEAR. */
#define VMSTACK_VM4_F_JIT_NEAR		(1U << 2)
/* The compiled-code table's entries are 4 bytes (ABI 3's F_REF32). */
#define VMSTACK_VM4_F_JIT_REF32		(1U << 3)
/*
 * (4.1) Compiled code that no object the id names holds (the id < 0
 * while the VM's garbage collector runs a step compiled code called; an
 * exit stub) is still the VM's if it lies in one of its code areas: the
 * first at *(A + jit_area_off), each page-aligned, starting with the
 * next one's address (0 ends the list) and its own size in bytes (u64,
 * at + 8, at most VMSTACK_VM_JIT_AREA_MAX), jit_areas_max of them at
 * most. (A wrong anchor reads other memory: an area that is not aligned
 * or a size beyond the bound proves nothing.) The program runs at AT_JIT with r2 0:
 * no code object is shown.
 */
#define VMSTACK_VM4_F_JIT_AREAS		(1U << 4)
#define VMSTACK_VM4_F_ALL		((1U << 5) - 1)

/*
 * A VM, ABI 4. The module checks every field and instruction at VM_ADD:
 * known opcodes, registers below 16, jumps that land inside the program,
 * constants and registers that exist, EXIT immediates that exist, a last
 * instruction that is EXIT or JA, zero padding.
 */
struct vmstack_vm_desc4 {
	__u32 size;		/* sizeof(struct vmstack_vm_desc4) as the sender knows it */
	__u32 flags;		/* VMSTACK_VM4_F_* */
	struct vmstack_vm4_range ranges[VMSTACK_VM4_RANGES];	/* unused: 0, 0 */
	__u16 max_frames;	/* per run, 1..VMSTACK_VM_MAX_FRAMES */
	__u16 prog_len;		/* 1..VMSTACK_VM4_PROG_MAX */
	__u32 nr_consts;	/* 0..VMSTACK_VM4_CONSTS */
	/* The caller's registers, saved by the VM's entry at the AR (r1 at EXIT). */
	__s32 caller_bp_off;
	__s32 caller_ra_off;
	__s32 caller_sp_off;	/* AR + off = the caller's sp */
	/* F4_JIT: as struct vmstack_vm_desc's fields of the same names. */
	__u8 jit_reg;		/* enum vmstack_vm_reg; NONE: *(jit_anchor_ptr) */
	__u8 pad0[3];
	__s32 jit_anchor_adj;
	__u64 jit_anchor_ptr;
	__u64 jit_mask;		/* a table entry & jit_mask is the object (ABI 3: func_mask) */
	__s32 jit_id_off, jit_table_off, jit_count_off;
	__s32 jit_code_off, jit_size_off;
	__s32 jit_link_off, jit_root_off, jit_side_off;	/* F4_JIT_NEAR */
	__u32 jit_near_max;	/* F4_JIT_NEAR: 1..VMSTACK_VM_JIT_NEAR_MAX */
	__u64 consts[VMSTACK_VM4_CONSTS];
	struct vmstack_vm_insn prog[VMSTACK_VM4_PROG_MAX];
	/* 4.1: F4_JIT_AREAS */
	__s32 jit_area_off;
	__u32 jit_areas_max;	/* 1..VMSTACK_VM_JIT_AREAS_MAX */
};
/*
 * The struct's size at each minor: VM_ADD takes a descriptor from the
 * 4.0 size on, whose size field says its length; a longer one (a newer
 * minor) only if the bytes past the module's struct are 0.
 */
#define VMSTACK_VM4_DESC_SIZE_4_0	2336
#define VMSTACK_VM4_DESC_SIZE_4_1	2344
#define VMSTACK_VM4_DESC_MIN_SIZE	VMSTACK_VM4_DESC_SIZE_4_0
#define VMSTACK_VM4_DESC_MAX_SIZE	8192

/*
 * VM frames inside the user part of ips[]: VM words, which are never user
 * addresses (bits 63..62 are 01: not canonical with 4- or 5-level paging;
 * the module stores no return address that is not a user address).
 *   bits 63..62  01
 *   bits 61..59  the kind (enum vmstack_vmw_kind)
 *   bits 58..57  the VM: index of its descriptor in the session (VM_ADD
 *                order, from 0)
 *   bits 56..0   the value: a script's identity, a builtin function (or
 *                its kind: F_BUILTIN_KIND), a compiled code object, why
 *                the VM part was cut, or why a frame is unverified
 * A SCRIPT word is followed by a word holding the frame's PC in the VM (0
 * when unknown).
 */
enum vmstack_vmw_kind {
	VMSTACK_VMW_SCRIPT = 1,	/* | identity; PC follows */
	VMSTACK_VMW_BUILTIN,	/* | function */
	VMSTACK_VMW_BROKEN,	/* | reason: the VM part is cut here */
	VMSTACK_VMW_JIT,	/* | compiled code object */
	/*
	 * (3.6) | enum vmstack_vmw_unverified: a frame whose function could
	 * not be verified (F_FUNC_CHECK, F_PC_CHECK); the frames below it go on.
	 */
	VMSTACK_VMW_UNVERIFIED,
};

/* Why a frame is shown as VMSTACK_VMW_UNVERIFIED. */
enum vmstack_vmw_unverified {
	VMSTACK_VMU_NOT_FUNC = 1,	/* its slot holds no function */
	VMSTACK_VMU_KIND,		/* a kind no builtin has */
	VMSTACK_VMU_EDGE,		/* being entered or left: pc_reg is its link */
};

#define VMSTACK_VMW_TAG		(1ULL << 62)
#define VMSTACK_VMW_TAG_MASK	(3ULL << 62)
#define VMSTACK_VMW_KIND_SHIFT	59
#define VMSTACK_VMW_VM_SHIFT	57
#define VMSTACK_VMW_VALUE_MASK	((1ULL << VMSTACK_VMW_VM_SHIFT) - 1)

static inline __u64 vmstack_vmw(unsigned int kind, unsigned int vm, __u64 value)
{
	return VMSTACK_VMW_TAG | (__u64)(kind & 7) << VMSTACK_VMW_KIND_SHIFT |
	       (__u64)(vm & 3) << VMSTACK_VMW_VM_SHIFT |
	       (value & VMSTACK_VMW_VALUE_MASK);
}

static inline int vmstack_is_vmw(__u64 word)
{
	return (word & VMSTACK_VMW_TAG_MASK) == VMSTACK_VMW_TAG;
}

static inline unsigned int vmstack_vmw_kind(__u64 word)
{
	return (unsigned int)(word >> VMSTACK_VMW_KIND_SHIFT) & 7;
}

static inline unsigned int vmstack_vmw_vm(__u64 word)
{
	return (unsigned int)(word >> VMSTACK_VMW_VM_SHIFT) & 3;
}

static inline __u64 vmstack_vmw_value(__u64 word)
{
	return word & VMSTACK_VMW_VALUE_MASK;
}

/* Sample flags. */
#define VMSTACK_SF_KERNEL_TRUNC	(1U << 0)	/* kernel stack hit the cap */
#define VMSTACK_SF_USER_TRUNC	(1U << 1)	/* user stack hit the cap */
#define VMSTACK_SF_USER_FAULT	(1U << 2)	/* a user read failed */
#define VMSTACK_SF_USER_BROKEN	(1U << 3)	/* frame chain invalid */
#define VMSTACK_SF_IN_KERNEL	(1U << 4)	/* sample hit kernel mode */
#define VMSTACK_SF_VM		(1U << 5)	/* VM frames were merged in */
#define VMSTACK_SF_VM_BROKEN	(1U << 6)	/* bad VM data cut the VM part */
#define VMSTACK_SF_BUDGET	(1U << 7)	/* the read or time budget cut the user stack */
#define VMSTACK_SF_NO_USER	(1U << 8)	/* user stack not read (not dumpable, 32-bit) */
#define VMSTACK_SF_UNDESCRIBED	(1U << 9)	/* 3.5: not in the set: frame pointers only */
#define VMSTACK_SF_VM_UNVERIFIED (1U << 10)	/* 3.6: a VM frame is unverified */
#define VMSTACK_SF_PREEMPTED	(1U << 11)	/* 4.4, SWITCH: still runnable, not waiting */

struct vmstack_rec_hdr {
	__u16 type;		/* enum vmstack_rec_type */
	__u16 flags;		/* VMSTACK_SF_* */
	__u32 size;		/* bytes including this header, multiple of 8 */
};

/*
 * A sample: ips[] holds nr_kernel kernel addresses, leaf first, then
 * nr_user user addresses, leaf first. ips[nr_kernel] is the user PC; the
 * other user entries are return addresses.
 */
struct vmstack_rec_sample {
	struct vmstack_rec_hdr hdr;
	__u64 time_ns;		/* CLOCK_MONOTONIC, when the event fired (4.4; before, once walked) */
	__u32 pid;		/* in its creator's PID namespace; 0 outside, as perf */
	__u32 tid;
	__u32 cpu;
	__u16 nr_kernel;
	__u16 nr_user;
	__u64 ips[];
};

/*
 * A switch-out (4.4): struct vmstack_rec_sample (hdr.type
 * VMSTACK_REC_SWITCH, the stack where the thread stops running) followed,
 * after ips[], by this. The wait that starts here ends when the thread
 * runs again: for its next SWITCH record, the off-CPU time between is
 * (time_ns' - time_ns) - (run_ns' - run_ns), one wait when switches' is
 * switches + 1 (a switch-out not recorded makes the gap larger).
 */
struct vmstack_rec_switch_tail {
	__u64 run_ns;		/* the thread's CPU time so far */
	__u64 switches;		/* its context switches so far, this one included */
};

#endif /* _UAPI_LINUX_VMSTACK_H */
