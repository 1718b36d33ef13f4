// SPDX-License-Identifier: GPL-2.0
/*
 * Session lifetime: the registry of sessions (ids, limits), and the file
 * that owns each. SESSION_START checks the caller's right (access.c),
 * builds the target set (target.c), the rings (ring.c) and the events
 * (events.c), and hands the caller the file. Closing the file's
 * descriptor in the process that started it stops sampling; the last of
 * the descriptor and the rings' mapping frees everything, so a killed
 * recorder leaves nothing.
 */
#include <linux/anon_inodes.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "access.h"
#include "account.h"
#include "events.h"
#include "ring.h"
#include "session.h"
#include "thread_events.h"
#include "target.h"

/* vmstack_sessions_lock: the list, the ids, the limits. */
static DEFINE_MUTEX(vmstack_sessions_lock);
static LIST_HEAD(vmstack_sessions);
static DEFINE_IDR(vmstack_ids);

static const struct file_operations vmstack_session_fops;

/*
 * Per network namespace: the count is all GET_STATUS tells, to anyone,
 * and a container's network namespace learns nothing of the host's.
 */
u32 vmstack_nr_sessions(u64 net_cookie)
{
	struct vmstack_session *s;
	u32 n = 0;

	mutex_lock(&vmstack_sessions_lock);
	list_for_each_entry(s, &vmstack_sessions, node)
		n += s->net_cookie == net_cookie;
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

static void vmstack_session_free(struct vmstack_session *s)
{
	vmstack_events_stop(s);
	/* Belt and braces: a handler can outlive nothing it uses. */
	synchronize_rcu();
	vmstack_targets_free(s);
	vmstack_rings_free(s);
	vmstack_events_free(s);
	free_percpu(s->pcpu);
	if (s->pid_ns)
		put_pid_ns(s->pid_ns);
	if (s->account) {
		vmstack_account_uncharge(s->account, s->account_base);
		vmstack_account_put(s->account);
	}
	kfree(s);
}

/*
 * The owner's account, charged for what every session holds whatever it
 * samples: itself, a vmstack_cpu per possible CPU (alloc_percpu() makes
 * one for each), the rings' page table and the events' array.
 */
static int vmstack_session_account(struct vmstack_session *s,
				   struct netlink_ext_ack *extack)
{
	u64 base = sizeof(*s) + (u64)num_possible_cpus() * sizeof(struct vmstack_cpu) +
		   s->nr_pages * sizeof(struct page *) +
		   s->nr_rings * vmstack_nr_events(s) * sizeof(struct perf_event *);
	int err;

	s->account = vmstack_account_get(s->owner);
	if (!s->account)
		return -ENOMEM;
	err = vmstack_account_charge(s->account, base, extack);
	if (!err)
		s->account_base = base;
	return err;
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
		vmstack_events_stop(s);
	return 0;
}

static int vmstack_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vmstack_session *s = file->private_data;

	/* A file reopened through /proc/PID/fd carries no session. */
	if (!s)
		return -EINVAL;
	return vmstack_rings_mmap(s, vma);
}

static __poll_t vmstack_file_poll(struct file *file, poll_table *pt)
{
	struct vmstack_session *s = file->private_data;

	/* As mmap: a file reopened through /proc/PID/fd carries no session. */
	return s ? vmstack_rings_poll(s, file, pt) : EPOLLERR;
}

static const struct file_operations vmstack_session_fops = {
	.owner = THIS_MODULE,
	.release = vmstack_file_release,
	.flush = vmstack_file_flush,
	.mmap = vmstack_file_mmap,
	.poll = vmstack_file_poll,
	.llseek = noop_llseek,
};

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

int vmstack_session_start(const struct vmstack_caller *c,
			  const struct vmstack_session_cfg *cfg,
			  struct netlink_ext_ack *extack,
			  struct vmstack_session **sp, struct file **filep)
{
	struct vmstack_session *s;
	struct file *file;
	int err;

	err = vmstack_may_start(c, extack);
	if (err)
		return err;
	if (!is_power_of_2(cfg->ring_pages)) {
		NL_SET_ERR_MSG(extack, "ring pages must be a power of 2");
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	INIT_LIST_HEAD(&s->node);
	mutex_init(&s->lock);
	vmstack_thread_events_init(s);
	hash_init(s->procs);
	hash_init(s->uw_keys);
	s->cfg = *cfg;
	s->sampling = !cfg->paused;
	s->owner = c->cred->uid;
	s->net_cookie = c->net_cookie;
	s->owner_files = current->files;
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	vmstack_rings_size(s);
	err = vmstack_session_account(s, extack);
	if (err)
		goto err_free;
	err = vmstack_targets_init(s, c, extack);
	if (err)
		goto err_free;
	err = vmstack_rings_charge(s, c, extack);
	if (err)
		goto err_free;
	/* Each CPU's state holds its ring. */
	s->pcpu = alloc_percpu_gfp(struct vmstack_cpu, GFP_KERNEL_ACCOUNT);
	err = s->pcpu ? vmstack_rings_alloc(s) : -ENOMEM;
	if (!err)
		err = vmstack_events_alloc(s);
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
	err = vmstack_events_start(s, extack);
	if (err)
		goto err_file;
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

void vmstack_session_exit(void)
{
	idr_destroy(&vmstack_ids);
}
