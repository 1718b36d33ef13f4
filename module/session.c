// SPDX-License-Identifier: GPL-2.0
/*
 * Session lifetime: who may start one, the target, the perf events (one
 * per online CPU, made and released by CPU hotplug; or with TASK_EVENTS
 * one on the target, inherited by its threads), the rings, and the
 * file that owns them all. Closing the file's descriptor in the process
 * that started it stops sampling; the last of the descriptor and the
 * rings' mapping frees everything, so a killed recorder leaves nothing.
 */
#include <linux/anon_inodes.h>
#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/netlink.h>
#include "vmstack.h"
#include "compat.h"

/* vmstack_sessions_lock: the list, the ids, the limits. */
static DEFINE_MUTEX(vmstack_sessions_lock);
static LIST_HEAD(vmstack_sessions);
static DEFINE_IDR(vmstack_ids);
static enum cpuhp_state vmstack_cpuhp_state;

static const struct file_operations vmstack_session_fops;

u32 vmstack_nr_sessions(void)
{
	struct vmstack_session *s;
	u32 n = 0;

	mutex_lock(&vmstack_sessions_lock);
	list_for_each_entry(s, &vmstack_sessions, node)
		n++;
	mutex_unlock(&vmstack_sessions_lock);
	return n;
}

struct vmstack_session *vmstack_session_get(u32 fd, struct file **filep,
					    struct netlink_ext_ack *extack)
{
	struct file *file = fget(fd);

	/* The caller's own table: only the holder of a session names it. */
	if (!file || file->f_op != &vmstack_session_fops || !file->private_data) {
		if (file)
			fput(file);
		NL_SET_ERR_MSG(extack, "SESSION_FD is not a vmstack session of the caller");
		return NULL;
	}
	*filep = file;
	return file->private_data;
}

/* The session's event: disabled unless it samples. */
static void vmstack_event_attr(struct vmstack_session *s, struct perf_event_attr *attr)
{
	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.freq = 1,
		.sample_freq = s->cfg.freq,
		.disabled = !s->sampling,
	};
	if (s->cfg.event == VMSTACK_EVENT_CYCLES) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	}
}

/* One CPU's event. Caller holds s->lock. */
static int vmstack_event_make(struct vmstack_session *s, unsigned int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	vmstack_event_attr(s, &attr);
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, vmstack_overflow, s);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	s->events[cpu] = ev;
	return 0;
}

/*
 * TASK_EVENTS: one event on the target's only thread, inherited by each
 * thread it creates (inherit_thread: not by child processes), so it fires
 * only while a thread of the target runs and a CPU the target does not
 * use takes no interrupt. No thread can escape it if none exists besides
 * the one it is on once it is in place: a thread made before would be
 * counted below (one made by a clone already past perf's inheritance but
 * not yet counted is the caller's to prevent: it holds the target). No
 * hotplug either: the event follows its task to any CPU.
 */
static int vmstack_task_event_make(struct vmstack_session *s,
				   struct netlink_ext_ack *extack)
{
	struct perf_event_attr attr;
	struct task_struct *task;
	struct perf_event *ev;
	int threads;

	task = get_pid_task(s->first->tgid, PIDTYPE_PID);
	if (!task) {
		NL_SET_ERR_MSG(extack, "no such process");
		return -ESRCH;
	}
	vmstack_event_attr(s, &attr);
	attr.inherit = 1;
	/* Threads only, unless the session follows child processes too. */
	attr.inherit_thread = !s->cfg.children;
	ev = perf_event_create_kernel_counter(&attr, -1, task, vmstack_overflow, s);
	threads = get_nr_threads(task);
	put_task_struct(task);
	if (IS_ERR(ev)) {
		NL_SET_ERR_MSG(extack, "cannot create the target's event");
		return PTR_ERR(ev);
	}
	if (threads != 1) {
		perf_event_release_kernel(ev);
		NL_SET_ERR_MSG(extack, "TASK_EVENTS needs a target of one thread");
		return -EINVAL;
	}
	mutex_lock(&s->lock);
	s->task_event = ev;
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * CPU hotplug (CPUHP_AP_ONLINE_DYN, on the CPU itself): a CPU that comes
 * online gets the session's event, one that goes down loses it; the time
 * in between is counted (OFFLINE_NS). Adding the session as an instance
 * makes the events of the CPUs online then.
 */
static int vmstack_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct vmstack_session *s = hlist_entry(node, struct vmstack_session, cpuhp);
	struct vmstack_cpu *pc = per_cpu_ptr(s->pcpu, cpu);
	int err = 0;

	mutex_lock(&s->lock);
	if (pc->offline_since) {
		vmstack_count(&pc->stats, VMSTACK_CS_A_OFFLINE_NS,
			      ktime_get_ns() - pc->offline_since);
		pc->offline_since = 0;
	}
	if (!s->stopped && !s->events[cpu] && cpu < s->nr_rings)
		err = vmstack_event_make(s, cpu);
	mutex_unlock(&s->lock);
	/* A CPU coming online later is not refused for it: just not sampled. */
	return s->hotplug ? 0 : err;
}

static int vmstack_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct vmstack_session *s = hlist_entry(node, struct vmstack_session, cpuhp);

	mutex_lock(&s->lock);
	if (s->events[cpu]) {
		perf_event_release_kernel(s->events[cpu]);
		s->events[cpu] = NULL;
		if (!s->stopped)
			per_cpu_ptr(s->pcpu, cpu)->offline_since = ktime_get_ns();
	}
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * Stop for good: release every event. When this returns no handler of
 * the session runs (perf removes an event from its CPU synchronously).
 */
void vmstack_session_stop(struct vmstack_session *s)
{
	struct perf_event *task_event;
	bool hotplug;

	mutex_lock(&s->lock);
	s->stopped = true;
	s->sampling = false;
	hotplug = s->hotplug;
	s->hotplug = false;
	task_event = s->task_event;
	s->task_event = NULL;
	mutex_unlock(&s->lock);
	/* Not under s->lock: the teardown callbacks take it. */
	if (hotplug)
		cpuhp_state_remove_instance(vmstack_cpuhp_state, &s->cpuhp);
	/* The inherited events go with it, as synchronously. */
	if (task_event)
		perf_event_release_kernel(task_event);
}

void vmstack_session_resume(struct vmstack_session *s)
{
	unsigned int cpu;

	mutex_lock(&s->lock);
	if (!s->stopped) {
		s->sampling = true;
		for (cpu = 0; cpu < s->nr_rings; cpu++)
			if (s->events[cpu])
				perf_event_enable(s->events[cpu]);
		if (s->task_event)
			perf_event_enable(s->task_event);
	}
	mutex_unlock(&s->lock);
}

/* Caller holds s->lock. */
int vmstack_vm_add(struct vmstack_session *s, struct vmstack_proc *p,
		   const void *desc, size_t len, struct netlink_ext_ack *extack)
{
	struct vmstack_vm_desc d = { 0 };
	const char *why;
	int err = 0;

	lockdep_assert_held(&s->lock);
	/*
	 * The policy holds @len to VMSTACK_VM_DESC_MIN_SIZE..MAX_SIZE. A
	 * shorter descriptor (an older tool) leaves our newer fields 0; a
	 * longer one (a newer tool) may only carry zeros we do not know.
	 */
	if (len > sizeof(d) && memchr_inv((const u8 *)desc + sizeof(d), 0,
					  len - sizeof(d))) {
		NL_SET_ERR_MSG(extack,
			       "VM descriptor uses fields this module does not know (a newer ABI minor)");
		return -EOPNOTSUPP;
	}
	/* A copy: the attribute is only 4-byte aligned. */
	memcpy(&d, desc, min(len, sizeof(d)));
	why = vmstack_vm_desc_check(&d);
	if (why) {
		vmstack_set_err(extack, why);
		return -EINVAL;
	}
	BUILD_BUG_ON(VMSTACK_VM_MAX > 4);	/* two bits of a VM word */
	BUILD_BUG_ON(sizeof(d) != VMSTACK_VM_DESC_SIZE_3_2 ||
		     sizeof(d) < VMSTACK_VM_DESC_MIN_SIZE ||
		     sizeof(d) > VMSTACK_VM_DESC_MAX_SIZE);
	if (p->nr_vms == VMSTACK_VM_MAX) {
		NL_SET_ERR_MSG(extack, "too many VM descriptors for this process");
		err = -ENOSPC;
	} else {
		p->vms[p->nr_vms] = d;
		/* The handler reads nr_vms first: the descriptor must be in place. */
		smp_store_release(&p->nr_vms, p->nr_vms + 1);
	}
	return err;
}

/* How big the rings are: a control page and the data pages per CPU. */
static void vmstack_rings_size(struct vmstack_session *s)
{
	s->nr_rings = nr_cpu_ids;
	s->ring_stride = (size_t)(s->cfg.ring_pages + 1) * PAGE_SIZE;
	s->area_size = s->ring_stride * s->nr_rings;
	s->nr_pages = s->area_size >> PAGE_SHIFT;
}

/* The rings' pages: charged to the caller's memory cgroup. */
static int vmstack_rings_alloc(struct vmstack_session *s)
{
	unsigned long i;
	unsigned int cpu;

	s->pages = kvcalloc(s->nr_pages, sizeof(*s->pages), GFP_KERNEL_ACCOUNT);
	if (!s->pages)
		return -ENOMEM;
	for (i = 0; i < s->nr_pages; i++) {
		s->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					 __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
		if (!s->pages[i])
			return -ENOMEM;
	}
	/* VM_USERMAP: remap_vmalloc_range() maps it for the reader. */
	s->area = vmap(s->pages, s->nr_pages, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (!s->area)
		return -ENOMEM;
	s->pcpu = alloc_percpu_gfp(struct vmstack_cpu, GFP_KERNEL_ACCOUNT);
	if (!s->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		if (cpu >= s->nr_rings)
			break;
		vmstack_ring_init(&per_cpu_ptr(s->pcpu, cpu)->ring,
				  (u8 *)s->area + cpu * s->ring_stride,
				  s->cfg.ring_pages, cpu);
	}
	s->events = kcalloc(s->nr_rings, sizeof(*s->events), GFP_KERNEL_ACCOUNT);
	return s->events ? 0 : -ENOMEM;
}

static void vmstack_rings_free(struct vmstack_session *s)
{
	unsigned long i;

	if (s->area)
		vunmap(s->area);
	for (i = 0; s->pages && i < s->nr_pages && s->pages[i]; i++)
		__free_page(s->pages[i]);
	kvfree(s->pages);
	free_percpu(s->pcpu);
	kfree(s->events);
}

/*
 * The rings count as the user's locked memory, as perf's buffers do:
 * within RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.
 */
static int vmstack_charge(struct vmstack_session *s, struct netlink_ext_ack *extack)
{
	unsigned long pages = s->nr_pages, limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	bool unlimited = capable(CAP_IPC_LOCK);
	unsigned long cur;

	s->user = get_current_user();
	cur = atomic_long_read(&s->user->locked_vm);
	do {
		if (!unlimited && cur + pages > limit) {
			NL_SET_ERR_MSG(extack,
				       "the rings exceed RLIMIT_MEMLOCK: raise it or use fewer ring pages");
			return -ENOMEM;
		}
	} while (!atomic_long_try_cmpxchg(&s->user->locked_vm, &cur, cur + pages));
	s->locked_pages = pages;
	return 0;
}

static void vmstack_session_free(struct vmstack_session *s)
{
	vmstack_session_stop(s);
	/* Belt and braces: a handler can outlive nothing it uses. */
	synchronize_rcu();
	vmstack_targets_free(s);
	vmstack_rings_free(s);
	if (s->user) {
		atomic_long_sub(s->locked_pages, &s->user->locked_vm);
		free_uid(s->user);
	}
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	if (s->cgrp)
		vmstack_cgroup_put(s->cgrp);
	kfree(s);
}

static int vmstack_file_release(struct inode *inode, struct file *file)
{
	struct vmstack_session *s = file->private_data;

	if (!s)
		return 0;
	mutex_lock(&vmstack_sessions_lock);
	list_del(&s->node);
	idr_remove(&vmstack_ids, s->id);
	mutex_unlock(&vmstack_sessions_lock);
	vmstack_session_free(s);
	return 0;
}

/*
 * Every close of a descriptor of the file; @id is the closer's file
 * table. Closing it in the process that started the session (its exit
 * included) stops sampling, even while the rings stay mapped.
 */
static int vmstack_file_flush(struct file *file, fl_owner_t id)
{
	struct vmstack_session *s = file->private_data;

	/* Compared, never followed: the starter's table may be gone. */
	if (s && id == s->owner_files)
		vmstack_session_stop(s);
	return 0;
}

static int vmstack_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vmstack_session *s = file->private_data;

	/* A file reopened through /proc/PID/fd carries no session. */
	if (!s)
		return -EINVAL;
	if (vma->vm_pgoff != 0 || vma->vm_end - vma->vm_start != s->area_size)
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	/* Not inherited by fork: a child would keep the session alive. */
	vm_flags_clear(vma, VM_MAYEXEC);
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	return remap_vmalloc_range(vma, s->area, 0);
}

static const struct file_operations vmstack_session_fops = {
	.owner = THIS_MODULE,
	.release = vmstack_file_release,
	.flush = vmstack_file_flush,
	.mmap = vmstack_file_mmap,
	.llseek = noop_llseek,
};

/* Who may profile @task: perf's rule for a task event, by hand. */
static int vmstack_may_profile(struct sk_buff *skb, struct task_struct *task,
			       struct netlink_ext_ack *extack)
{
	const struct cred *cred = current_cred(), *tcred;
	bool same, dumpable;

	if (netlink_capable(skb, CAP_SYS_ADMIN) || netlink_capable(skb, CAP_SYS_PTRACE))
		return 0;
	/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS) is not exported. */
	rcu_read_lock();
	tcred = __task_cred(task);
	same = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	rcu_read_unlock();
	task_lock(task);
	dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	if (same && dumpable)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "may not read the target's memory: needs CAP_SYS_PTRACE, or the target's own user and a dumpable target");
	return -EPERM;
}

/* The target's thread group, if the caller may profile it. */
struct pid *vmstack_find_target(struct sk_buff *skb, u32 nr,
				struct netlink_ext_ack *extack, int *err,
				bool *watch_dumpable)
{
	bool privileged, dumpable;
	struct task_struct *task;
	struct pid *tgid = NULL;

	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	*err = -ESRCH;
	if (!task) {
		NL_SET_ERR_MSG(extack, "no such process");
		return NULL;
	}
	if (task->flags & PF_KTHREAD) {
		NL_SET_ERR_MSG(extack, "target is a kernel thread");
	} else {
		*err = vmstack_may_profile(skb, task, extack);
		if (!*err)
			tgid = get_pid(task_tgid(task));
		privileged = netlink_capable(skb, CAP_SYS_ADMIN) ||
			     netlink_capable(skb, CAP_SYS_PTRACE);
		task_lock(task);
		dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
		task_unlock(task);
		*watch_dumpable = !privileged || dumpable;
	}
	put_task_struct(task);
	return tgid;
}

/*
 * kernel.perf_event_max_sample_rate, which perf_event_open() holds every
 * caller to. Not exported to modules: read as perf's users read it.
 */
static int vmstack_max_sample_rate(u32 *rate)
{
	struct file *f = filp_open("/proc/sys/kernel/perf_event_max_sample_rate",
				   O_RDONLY, 0);
	char buf[24] = "";
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return -EIO;
	return kstrtou32(strim(buf), 10, rate);
}

/* Room for one more session of the caller's user? Caller holds the lock. */
static int vmstack_session_room(kuid_t uid, struct netlink_ext_ack *extack)
{
	struct vmstack_session *s;
	u32 all = 0, mine = 0;

	list_for_each_entry(s, &vmstack_sessions, node) {
		all++;
		mine += uid_eq(s->owner, uid);
	}
	if (all >= VMSTACK_MAX_SESSIONS) {
		NL_SET_ERR_MSG(extack, "too many vmstack sessions open (VMSTACK_MAX_SESSIONS)");
		return -EMFILE;
	}
	if (mine >= VMSTACK_MAX_USER_SESSIONS) {
		NL_SET_ERR_MSG(extack,
			       "too many vmstack sessions open by this user (VMSTACK_MAX_USER_SESSIONS)");
		return -EMFILE;
	}
	return 0;
}

/*
 * The session's first target (none for ALL and CGROUP_FD), the cgroup,
 * and how a process outside the set is read (ALL, CGROUP_FD, CHILDREN).
 * CAP_PERFMON (checked before) is perf's right to sample every
 * process's stacks; reading one that is not dumpable (a setuid program)
 * takes the right to read any process, as a target's does.
 */
static int vmstack_session_targets(struct vmstack_session *s, struct sk_buff *skb,
				   struct netlink_ext_ack *extack)
{
	struct cgroup *cgrp;
	int err;

	if (!s->cfg.all && !s->cfg.cgroup) {
		err = vmstack_target_add(s, skb, s->cfg.pid, extack);
		if (err || !s->cfg.children)
			return err;
	}
	/* A child runs with its parent's credentials unless it runs setuid. */
	s->undescribed.watch_dumpable = !netlink_capable(skb, CAP_SYS_ADMIN) &&
					!netlink_capable(skb, CAP_SYS_PTRACE);
	if (!s->cfg.cgroup)
		return 0;
	cgrp = vmstack_cgroup_get(s->cfg.cgroup_fd);
	if (PTR_ERR_OR_ZERO(cgrp) == -EOPNOTSUPP) {
		NL_SET_ERR_MSG(extack, "this kernel has no cgroups (CONFIG_CGROUPS)");
		return -EOPNOTSUPP;
	}
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG(extack, "CGROUP_FD is not a cgroup v2 directory");
		return PTR_ERR(cgrp);
	}
	s->cgrp = cgrp;
	return 0;
}

int vmstack_session_start(struct sk_buff *skb,
			  const struct vmstack_session_cfg *cfg,
			  struct netlink_ext_ack *extack,
			  struct vmstack_session **sp, struct file **filep)
{
	struct vmstack_session *s;
	struct file *file;
	u32 max_rate;
	int err;

	/*
	 * Perf events created in the kernel skip perf_event_open()'s checks,
	 * so the checks are ours. netlink_capable() also requires that
	 * whoever opened the socket had the capability, and is against the
	 * initial user namespace: root in a user namespace of its own is
	 * refused. The right to read the target is checked once it is found.
	 */
	if (!netlink_capable(skb, CAP_SYS_ADMIN) && !netlink_capable(skb, CAP_PERFMON)) {
		NL_SET_ERR_MSG(extack,
			       "needs CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace");
		return -EPERM;
	}
	if (!is_power_of_2(cfg->ring_pages)) {
		NL_SET_ERR_MSG(extack, "ring pages must be a power of 2");
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	INIT_LIST_HEAD(&s->node);
	mutex_init(&s->lock);
	hash_init(s->procs);
	hash_init(s->uw_keys);
	s->cfg = *cfg;
	s->sampling = !cfg->paused;
	s->owner = current_uid();
	s->owner_files = current->files;
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	err = vmstack_session_targets(s, skb, extack);
	if (err)
		goto err_free;
	err = vmstack_max_sample_rate(&max_rate);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot read kernel.perf_event_max_sample_rate");
		goto err_free;
	}
	/* Held to the limit every perf user is held to; the reply says. */
	s->cfg.freq = min(s->cfg.freq, max_rate);
	vmstack_rings_size(s);
	err = vmstack_charge(s, extack);
	if (err)
		goto err_free;
	err = vmstack_rings_alloc(s);
	if (err) {
		NL_SET_ERR_MSG(extack, "out of memory for the rings");
		goto err_free;
	}
	file = anon_inode_getfile("[vmstack]", &vmstack_session_fops, s,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(file)) {
		err = PTR_ERR(file);
		goto err_free;
	}
	/* From here on the file owns the session: fput() frees it. */
	mutex_lock(&vmstack_sessions_lock);
	err = vmstack_session_room(s->owner, extack);
	if (!err) {
		err = idr_alloc_cyclic(&vmstack_ids, s, 1, INT_MAX, GFP_KERNEL);
		if (err > 0) {
			s->id = err;
			err = 0;
		}
	}
	if (err) {
		mutex_unlock(&vmstack_sessions_lock);
		goto err_file;
	}
	list_add_tail(&s->node, &vmstack_sessions);
	mutex_unlock(&vmstack_sessions_lock);
	if (cfg->task_events) {
		err = vmstack_task_event_make(s, extack);
		if (err)
			goto err_file;
		*sp = s;
		*filep = file;
		return 0;
	}
	/* The events of the CPUs online now; hotplug makes the others'. */
	err = cpuhp_state_add_instance(vmstack_cpuhp_state, &s->cpuhp);
	if (err) {
		if (s->cfg.event == VMSTACK_EVENT_CYCLES)
			NL_SET_ERR_MSG(extack,
				       "cannot create a cycles event (no PMU?); try cpu-clock");
		else
			NL_SET_ERR_MSG(extack, "cannot create a cpu-clock event");
		goto err_file;
	}
	mutex_lock(&s->lock);
	s->hotplug = true;
	mutex_unlock(&s->lock);
	*sp = s;
	*filep = file;
	return 0;

err_file:
	fput(file);
	return err;
err_free:
	vmstack_session_free(s);
	return err;
}

int __init vmstack_session_init(void)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "vmstack:online",
					    vmstack_cpu_online, vmstack_cpu_offline);

	if (state < 0)
		return state;
	vmstack_cpuhp_state = state;
	return 0;
}

void vmstack_session_exit(void)
{
	cpuhp_remove_multi_state(vmstack_cpuhp_state);
	idr_destroy(&vmstack_ids);
}
