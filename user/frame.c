// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <linux/vmstack.h>

#include "frame.h"
#include "util.h"

void vmstack_frames_start(struct vmstack_frame_iter *it, const uint64_t *ips,
			  unsigned int nr_kernel, unsigned int nr_user,
			  uint16_t flags)
{
	it->ips = ips;
	it->nr_kernel = nr_kernel;
	it->n = nr_kernel + nr_user;
	it->i = 0;
	it->in_kernel = !!(flags & VMSTACK_SF_IN_KERNEL);
	it->past_leaf = 0;
}

static const enum vmstack_frame_kind vmw_kinds[8] = {
	[VMSTACK_VMW_SCRIPT] = VMSTACK_FRAME_SCRIPT,
	[VMSTACK_VMW_BUILTIN] = VMSTACK_FRAME_BUILTIN,
	[VMSTACK_VMW_BROKEN] = VMSTACK_FRAME_CUT,
	[VMSTACK_VMW_JIT] = VMSTACK_FRAME_JIT,
	[VMSTACK_VMW_UNVERIFIED] = VMSTACK_FRAME_UNVERIFIED,
};

int vmstack_frames_next(struct vmstack_frame_iter *it, struct vmstack_frame *f)
{
	unsigned int i = it->i;
	uint64_t w;

	if (i >= it->n)
		return 0;
	w = it->ips[i];
	*f = (struct vmstack_frame){ .value = w };
	it->i++;
	if (i < it->nr_kernel) {
		f->kind = VMSTACK_FRAME_KERNEL;
		f->ret = i > 0;
		return 1;
	}
	if (vmstack_is_vmw(w) && vmw_kinds[vmstack_vmw_kind(w)]) {
		f->kind = vmw_kinds[vmstack_vmw_kind(w)];
		f->value = vmstack_vmw_value(w);
		f->vm = (uint8_t)vmstack_vmw_vm(w);
		/* A script frame's PC word follows it. */
		if (f->kind == VMSTACK_FRAME_SCRIPT && it->i < it->n)
			f->pc = it->ips[it->i++];
		/*
		 * A cut for no sane state, or for faults spent before the
		 * walk, keeps the VM's native frame after it: at the leaf,
		 * the sampled PC. Any other frame stands for the leaf.
		 */
		if (f->kind != VMSTACK_FRAME_CUT ||
		    (f->value != VMSTACK_VMB_STATE && f->value != VMSTACK_VMB_FAULTS))
			it->past_leaf = 1;
		return 1;
	}
	/*
	 * A user address. The first is the sampled PC unless the sample hit
	 * the kernel: then it is where the kernel returns to, as are all
	 * the others. (Named as a return address, an address at a
	 * function's first instruction would be the previous function's.)
	 */
	f->kind = VMSTACK_FRAME_NATIVE;
	f->ret = it->past_leaf || it->in_kernel;
	it->past_leaf = 1;
	return 1;
}

const struct vmstack_frame *vmstack_frames_caller(const struct vmstack_frame_iter *it,
						  const struct vmstack_frame *f,
						  struct vmstack_frame *caller,
						  const struct vmstack_vm_across *across)
{
	struct vmstack_frame_iter next = *it;
	bool cross = across && across->mask && across->stop_hi > across->stop_lo &&
		     (f->pc & across->mask) == across->bits;
	uint64_t at;

	if (f->kind != VMSTACK_FRAME_SCRIPT)
		return NULL;
	while (vmstack_frames_next(&next, caller)) {
		if (caller->kind == VMSTACK_FRAME_SCRIPT && caller->vm == f->vm)
			return caller;
		if (!cross || caller->kind != VMSTACK_FRAME_NATIVE)
			return NULL;
		/* A return address's call is the byte before it. */
		at = caller->value - (caller->ret ? 1 : 0);
		if (at >= across->stop_lo && at < across->stop_hi)
			return NULL;
	}
	return NULL;
}

uint64_t vmstack_frame_word(const struct vmstack_frame *f)
{
	static const unsigned int vmw_of[VMSTACK_NR_FRAME_KINDS] = {
		[VMSTACK_FRAME_SCRIPT] = VMSTACK_VMW_SCRIPT,
		[VMSTACK_FRAME_BUILTIN] = VMSTACK_VMW_BUILTIN,
		[VMSTACK_FRAME_JIT] = VMSTACK_VMW_JIT,
		[VMSTACK_FRAME_CUT] = VMSTACK_VMW_BROKEN,
		[VMSTACK_FRAME_UNVERIFIED] = VMSTACK_VMW_UNVERIFIED,
	};

	return vmstack_vmw(vmw_of[f->kind], f->vm, f->value);
}

int vmstack_frame_is_vm(enum vmstack_frame_kind kind)
{
	return kind == VMSTACK_FRAME_SCRIPT || kind == VMSTACK_FRAME_BUILTIN ||
	       kind == VMSTACK_FRAME_JIT || kind == VMSTACK_FRAME_CUT ||
	       kind == VMSTACK_FRAME_UNVERIFIED;
}

struct vmstack_name vmstack_name_dup(const struct vmstack_name *n)
{
	size_t lf = strlen(n->function) + 1, ll = strlen(n->file) + 1;
	char *b = xmalloc(lf + ll);
	struct vmstack_name d = *n;

	d.function = memcpy(b, n->function, lf);
	d.file = memcpy(b + lf, n->file, ll);
	return d;
}

void vmstack_name_free(struct vmstack_name *n)
{
	free((char *)n->function);
	n->function = n->file = NULL;
}

struct vmstack_name vmstack_name_of(const struct vmstack_name_buf *b,
				    enum vmstack_frame_kind kind)
{
	return (struct vmstack_name){
		.kind = kind, .function = b->function, .file = b->file,
		.line = b->line, .start_line = b->start_line, .flags = b->flags,
	};
}

/*
 * Text made snprintf()'s way (cut to the room, the whole length told),
 * without its cost: every frame of a profile is made text at each write.
 */
struct text {
	char *buf;
	size_t len, n;		/* room, and what the whole text takes */
};

static void put(struct text *t, const char *s, size_t k)
{
	if (t->n < t->len)
		memcpy(t->buf + t->n, s, t->n + k < t->len ? k : t->len - t->n);
	t->n += k;
}

static void put_str(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

size_t vmstack_name_text(const struct vmstack_name *n, char *buf, size_t len)
{
	struct text t = { buf, len ? len - 1 : 0, 0 };
	const char *file = n->file, *slash;
	char num[12], *d = num + sizeof(num);
	uint32_t line = n->line;

	put_str(&t, n->function);
	if (n->flags & VMSTACK_NAME_INLINED)
		put_str(&t, " (inlined)");
	if (n->flags & VMSTACK_NAME_AT_LINE) {
		if (n->kind == VMSTACK_FRAME_NATIVE && (slash = strrchr(file, '/')))
			file = slash + 1;
		do
			*--d = (char)('0' + line % 10);
		while (line /= 10);
		put_str(&t, " (");
		put_str(&t, file);
		put_str(&t, ":");
		put(&t, d, (size_t)(num + sizeof(num) - d));
		put_str(&t, ")");
	}
	if (len)
		buf[t.n < t.len ? t.n : t.len] = 0;
	return t.n;
}
