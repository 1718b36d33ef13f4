// SPDX-License-Identifier: GPL-2.0
/*
 * What the runtime shapes share (shape.h): the fake address space, the
 * native sandwich, the walk and the comparison of its words.
 */
#include <inttypes.h>
#include <string.h>

#include "shape.h"
#include "file.h"
#include "maps.h"

#define STACK	SHAPE_STACK
#define HEAP	0x7f1200000000UL	/* a library's data and the heap: 64-bit addresses */
#define HEAP_LEN	0x40000UL

static u64 heap_next;
unsigned int shape_tid = SHAPE_TID;
u64 shape_tls = SHAPE_FS;
u64 shape_bp_at[8];

void shape_mem(void)
{
	fake_mem_reset();
	fake_mem_map(STACK, SHAPE_STACK_LEN);
	fake_mem_map(HEAP, HEAP_LEN);
	/* The static TLS block: the variables sit below the fs base. */
	fake_mem_map(SHAPE_FS - 0x1000, 0x2000);
	heap_next = HEAP + 0x100;
	shape_tid = SHAPE_TID;
	shape_tls = SHAPE_FS;
	memset(shape_bp_at, 0, sizeof(shape_bp_at));
}

u64 shape_alloc(u64 size)
{
	u64 at = heap_next;

	heap_next += (size + 15) & ~15UL;
	CHECK(heap_next <= HEAP + HEAP_LEN);
	return at;
}

u64 shape_frame_bp(unsigned int i)
{
	if (i < 8 && shape_bp_at[i])
		return shape_bp_at[i];
	return STACK + 0x1000 + 0x100 * i;
}

/*
 * The sandwich's native frames, each a saved rbp and a return address:
 * frame i's return address leads to frame i + 1's code.
 */
static void native_frames(void)
{
	static const u64 ra[] = {
		SHAPE_INNER_RA, SHAPE_MID1_RA, SHAPE_MID2_RA, SHAPE_OUTER_RA, SHAPE_MAIN_RA,
	};
	unsigned int i, n = sizeof(ra) / sizeof(ra[0]);

	for (i = 0; i < n; i++) {
		fake_put64(shape_frame_bp(i), i + 1 < n ? shape_frame_bp(i + 1) : 0);
		fake_put64(shape_frame_bp(i) + 8, ra[i]);
	}
}

void shape_desc(struct vmstack_vm_desc4 *d, struct vm_prog *p)
{
	const char *err;

	err = vm_prog_end_loop(p, d, SHAPE_VM_LO, SHAPE_VM_HI);
	if (err)
		fprintf(stderr, "  %s\n", err);
	CHECK(err == NULL);
	err = vmstack_vm_desc4_check(d);
	if (err)
		fprintf(stderr, "  %s\n", err);
	CHECK(err == NULL);
}

/* The walk from native frame @frame of the sandwich, at @ip: its words in @ips. */
static unsigned int walk(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w, u64 ip,
			 unsigned int frame, const unsigned long *regs, u64 *ips, unsigned int max)
{
	native_frames();
	memset(w, 0, sizeof(*w));
	memset(ips, 0, max * sizeof(*ips));
	w->vms = d;
	w->nr_vms = 1;
	if (regs)
		memcpy(w->regs, regs, sizeof(w->regs));
	w->ip = ip;
	w->sp = shape_frame_bp(frame) - 0x40;
	w->regs[VMSTACK_VM_REG_RBP] = shape_frame_bp(frame);
	w->tid = shape_tid;
	w->tls = shape_tls;
	w->ips = ips;
	w->max = max;
	w->reads_left = VMSTACK_MAX_READS;
	w->deadline = ~0ULL;
	return vmstack_walk_user(w);
}

unsigned int shape_walk_at(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w, u64 ip,
			   unsigned int frame, const unsigned long *regs, u64 *ips,
			   unsigned int max)
{
	return walk(d, w, ip, frame, regs, ips, max);
}

unsigned int shape_walk_ips(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w,
			    u64 *ips, unsigned int max)
{
	return walk(d, w, SHAPE_LEAF, 0, NULL, ips, max);
}

void shape_walk_check(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w,
		      const u64 *want, unsigned int n)
{
	shape_walk_from(d, w, SHAPE_LEAF, 0, NULL, want, n);
}

void shape_walk_check_stateless(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w)
{
	const u64 want[] = {
		SHAPE_LEAF,
		shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_STATE), SHAPE_INNER_RA,
		SHAPE_MID1_RA, SHAPE_MID2_RA,
		shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_STATE), SHAPE_OUTER_RA,
		SHAPE_MAIN_RA,
	};

	shape_walk_check(d, w, want, sizeof(want) / sizeof(want[0]));
}

void shape_walk_from(const struct vmstack_vm_desc4 *d, struct vmstack_walk *w, u64 ip,
		     unsigned int frame, const unsigned long *regs, const u64 *want,
		     unsigned int n)
{
	static u64 ips[64];
	unsigned int i, got;
	bool same;

	got = walk(d, w, ip, frame, regs, ips, 64);
	same = got == n;
	for (i = 0; same && i < n; i++)
		same = ips[i] == want[i];
	CHECK(same);
	if (same)
		return;
	for (i = 0; i < (got > n ? got : n); i++)
		fprintf(stderr, "  ips[%u] %#18" PRIx64 "  want %#18" PRIx64 "\n", i,
			i < got ? ips[i] : 0, i < n ? want[i] : 0);
}

enum vmstack_detect shape_live_detect(int pid, const char *runtime, const char *path_part,
				      struct vmstack_vm_found *found, char *why)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(runtime);
	enum vmstack_detect v = VMSTACK_DETECT_NO;
	char path[64], line[512];
	struct vmstack_map m;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && v == VMSTACK_DETECT_NO && fgets(line, sizeof(line), f)) {
		if (vmstack_map_parse(line, &m) || m.perms[2] != 'x' || !strstr(m.path, path_part))
			continue;
		m.file = vmstack_file_get(m.dev, m.inode, m.path, pid);
		memset(found, 0, sizeof(*found));
		v = rt->detect(&m, pid, found, why, 256);
		vmstack_file_put(m.file);
	}
	if (f)
		fclose(f);
	return v;
}

bool shape_next_named(const struct vmstack_runtime *rt, const void *build, int pid,
		      const u64 *ips, unsigned int n, unsigned int *k,
		      struct vmstack_name_buf *nb)
{
	struct vmstack_frame fr = { .kind = VMSTACK_FRAME_SCRIPT };

	while (*k < n && !vmstack_is_vmw(ips[*k]))
		(*k)++;
	if (*k >= n)
		return false;
	fr.value = ips[*k] & VMSTACK_VMW_VALUE_MASK;
	fr.pc = ips[++*k];
	memset(nb, 0, sizeof(*nb));
	CHECK(!rt->namer(build, pid, &fr, nb));
	return true;
}
