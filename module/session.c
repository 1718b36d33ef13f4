// SPDX-License-Identifier: GPL-2.0
/*
 * Session lifetime: the target, the perf events, the rings and the file
 * descriptor that owns them all. A session ends when its file is released
 * (close, or the owner's exit), so a killed recorder leaves nothing behind.
 */
#include <linux/anon_inodes.h>
#include <linux/cpu.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/build_bug.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "vmstack.h"

DEFINE_MUTEX(vmstack_sessions_lock);
static LIST_HEAD(vmstack_sessions);
static u32 vmstack_next_id = 1;

/* Caller holds vmstack_sessions_lock. */
struct vmstack_session *vmstack_session_find(u32 id)
{
	struct vmstack_session *s;

	list_for_each_entry(s, &vmstack_sessions, node)
		if (s->id == id)
			return s;
	return NULL;
}

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

/* Caller holds vmstack_sessions_lock (or owns @s alone). */
void vmstack_session_stop(struct vmstack_session *s)
{
	unsigned int cpu;

	if (!s->events)
		return;
	for (cpu = 0; cpu < s->nr_rings; cpu++)
		if (s->events[cpu])
			perf_event_release_kernel(s->events[cpu]);
	kfree(s->events);
	s->events = NULL;
	/*
	 * A handler already running on another CPU (an NMI, say) runs with
	 * preemption off; once this returns none can still see the session.
	 */
	synchronize_rcu();
}

/* Caller holds vmstack_sessions_lock. */
int vmstack_vm_add(struct vmstack_session *s, const void *desc, size_t len,
		   struct netlink_ext_ack *extack)
{
	struct vmstack_vm_desc d = { 0 };
	const char *why;

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
	if (s->nr_vms == VMSTACK_VM_MAX) {
		NL_SET_ERR_MSG(extack, "too many VM descriptors in this session");
		return -ENOSPC;
	}
	BUILD_BUG_ON(VMSTACK_VM_MAX > 4);	/* two bits of a VM word */
	BUILD_BUG_ON(sizeof(d) != VMSTACK_VM_DESC_SIZE_2_1 || sizeof(d) < VMSTACK_VM_DESC_MIN_SIZE ||
		     sizeof(d) > VMSTACK_VM_DESC_MAX_SIZE);
	s->vms[s->nr_vms] = d;
	/* The handler reads nr_vms first: the descriptor must be in place. */
	smp_store_release(&s->nr_vms, s->nr_vms + 1);
	return 0;
}

/* Caller holds vmstack_sessions_lock. */
void vmstack_session_resume(struct vmstack_session *s)
{
	unsigned int cpu;

	for (cpu = 0; s->events && cpu < s->nr_rings; cpu++)
		if (s->events[cpu])
			perf_event_enable(s->events[cpu]);
}

static void vmstack_session_free(struct vmstack_session *s)
{
	vmstack_session_stop(s);
	vmstack_uw_free(s);
	vfree(s->area);
	free_percpu(s->pcpu);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	put_pid(s->tgid);
	kfree(s);
}

static int vmstack_file_release(struct inode *inode, struct file *file)
{
	struct vmstack_session *s = file->private_data;

	if (!s)
		return 0;
	mutex_lock(&vmstack_sessions_lock);
	list_del(&s->node);
	mutex_unlock(&vmstack_sessions_lock);
	vmstack_session_free(s);
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
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return remap_vmalloc_range(vma, s->area, 0);
}

static const struct file_operations vmstack_session_fops = {
	.owner = THIS_MODULE,
	.release = vmstack_file_release,
	.mmap = vmstack_file_mmap,
	.llseek = noop_llseek,
};

static struct pid *vmstack_find_target(u32 nr, struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	struct pid *tgid = NULL;

	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (!task)
		NL_SET_ERR_MSG(extack, "no such process");
	else if (task->flags & PF_KTHREAD)
		NL_SET_ERR_MSG(extack, "target is a kernel thread");
	else
		tgid = get_pid(task_tgid(task));
	rcu_read_unlock();
	return tgid;
}

static int vmstack_session_open_events(struct vmstack_session *s,
				       struct netlink_ext_ack *extack)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = s->cfg.freq,
		.disabled = s->cfg.paused,
	};
	struct perf_event *ev;
	unsigned int cpu;

	if (s->cfg.event == VMSTACK_EVENT_CYCLES) {
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	s->events = kcalloc(s->nr_rings, sizeof(*s->events), GFP_KERNEL);
	if (!s->events)
		return -ENOMEM;
	/*
	 * One event per CPU, filtered by process in the handler: it sees every
	 * thread of the target, those created later included, with no race
	 * between listing threads and attaching to them. CPUs brought online
	 * later are not sampled.
	 */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (cpu >= s->nr_rings)
			break;
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      vmstack_overflow, s);
		if (IS_ERR(ev)) {
			cpus_read_unlock();
			if (s->cfg.event == VMSTACK_EVENT_CYCLES)
				NL_SET_ERR_MSG(extack,
					       "cannot create a cycles event (no PMU?); try cpu-clock");
			else
				NL_SET_ERR_MSG(extack,
					       "cannot create a cpu-clock event");
			return PTR_ERR(ev);
		}
		s->events[cpu] = ev;
	}
	cpus_read_unlock();
	return 0;
}

static int vmstack_session_alloc_rings(struct vmstack_session *s)
{
	unsigned int cpu;

	s->nr_rings = nr_cpu_ids;
	s->ring_stride = (size_t)(s->cfg.ring_pages + 1) * PAGE_SIZE;
	s->area_size = s->ring_stride * s->nr_rings;
	s->area = vmalloc_user(s->area_size);
	if (!s->area)
		return -ENOMEM;
	s->pcpu = alloc_percpu(struct vmstack_cpu);
	if (!s->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		if (cpu >= s->nr_rings)
			break;
		vmstack_ring_init(&per_cpu_ptr(s->pcpu, cpu)->ring,
				  (u8 *)s->area + cpu * s->ring_stride,
				  s->cfg.ring_pages, cpu);
	}
	return 0;
}

int vmstack_session_start(const struct vmstack_session_cfg *cfg,
			  struct netlink_ext_ack *extack,
			  struct vmstack_session **sp, struct file **filep)
{
	struct vmstack_session *s;
	struct file *file;
	int err;

	if (!is_power_of_2(cfg->ring_pages)) {
		NL_SET_ERR_MSG(extack, "ring pages must be a power of 2");
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	INIT_LIST_HEAD(&s->node);
	INIT_LIST_HEAD(&s->uw_tables);
	s->cfg = *cfg;
	s->tgid = vmstack_find_target(cfg->pid, extack);
	if (!s->tgid) {
		err = -ESRCH;
		goto err_free;
	}
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	err = vmstack_session_alloc_rings(s);
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
	s->id = vmstack_next_id++;
	list_add_tail(&s->node, &vmstack_sessions);
	mutex_unlock(&vmstack_sessions_lock);

	err = vmstack_session_open_events(s, extack);
	if (err) {
		fput(file);
		return err;
	}
	*sp = s;
	*filep = file;
	return 0;

err_free:
	vmstack_session_free(s);
	return err;
}
