// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-fake-raw FILE: write a raw recording of known stacks, as the
 * recorder would, without the module: native frames in this program's own
 * functions (named from its mappings, saved in FILE), kernel frames, and
 * VM frames of every kind, named from FILE's table with the parts the
 * runtimes give (a Lua function "chunk:LINE", CPython's function, file and
 * line at two lines, a LuaJIT trace, a builtin, a cut VM stack, and a
 * Python function whose file has spaces, parentheses and colons in its
 * name). The host tests turn it into each format with vmstack-report
 * (tests/host/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw_file.h"

/* The native frames: distinct bodies, so the compiler folds neither into the other. */
static int leaf_fn(int x)
{
	return 3 * x + 1;
}

static int mid_fn(int x)
{
	return 5 * x + 2;
}

#define ADDR(fn) ((uint64_t)(uintptr_t)(fn) + 1)
#define K1 0xffffffff81000100ULL
#define K2 0xffffffff81000200ULL
/* The VM words: Lua in VM 0, CPython (named by PC) in VM 1. */
#define LUA vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x1000)
#define MAIN_CHUNK vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x1100)
#define PY vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x2000)
#define ODD_PY vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x2100)
#define TRACE vmstack_vmw(VMSTACK_VMW_JIT, 0, 0x3000)
#define BUILTIN vmstack_vmw(VMSTACK_VMW_BUILTIN, 0, 0x4000)
#define CUT vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 2)

/* @count samples of the stack @ips (@nk kernel words, then user ones, leaf first). */
static void add(struct vmstack_raw_buf *b, int count, unsigned int nk, unsigned int n,
		const uint64_t *ips)
{
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[16];
	} r = { 0 };

	r.rec.hdr.type = VMSTACK_REC_SAMPLE;
	r.rec.hdr.flags = VMSTACK_SF_VM | (nk ? VMSTACK_SF_IN_KERNEL : 0);
	r.rec.hdr.size = (uint32_t)(sizeof(r.rec) + n * 8);
	r.rec.pid = (uint32_t)getpid();
	r.rec.tid = r.rec.pid;
	r.rec.nr_kernel = (uint16_t)nk;
	r.rec.nr_user = (uint16_t)(n - nk);
	memcpy(r.ips, ips, n * 8);
	while (count--)
		vmstack_raw_append(b, &r.rec);
}

#define ADD(b, count, nk, ...) do {					\
	const uint64_t ips[] = { __VA_ARGS__ };				\
	add(b, count, nk, sizeof(ips) / 8, ips);			\
} while (0)

/* A Python file whose name a reader splitting "name (file:LINE)" would cut. */
#define ODD_FILE "/tmp/py dir/odd (v2):x.py"

/* VM word @ident at @pc is @function of @file at @line (from @first). */
static void name(struct vmstack_process *proc, uint64_t ident, uint64_t pc,
		 const char *function, const char *file, uint32_t line, uint32_t first,
		 unsigned int flags)
{
	vmstack_process_add_vm_name(proc, ident, pc, &(struct vmstack_name){
		.function = function, .file = file, .line = line, .start_line = first,
		.flags = flags });
}

int main(int argc, char **argv)
{
	struct vmstack_process *proc = vmstack_process_new(getpid());
	const uint64_t leaf = ADDR(leaf_fn), mid = ADDR(mid_fn), top = ADDR(main);
	struct vmstack_raw_head head = { .pid = getpid(), .comm = "fakeprog",
					 .freq = 999, .lost = 5,
					 .duration_ns = 3000000000ull };
	struct vmstack_raw_buf b = { 0 };
	struct vmstack_threads threads;
	int err;

	if (argc != 2)
		return 2;
	vmstack_process_refresh(proc);
	name(proc, LUA, 0, "app.lua:12", "app.lua", 12, 12, 0);
	name(proc, MAIN_CHUNK, 0, "app.lua:0", "app.lua", 0, 0, 0);
	name(proc, PY, 0x10, "handler", "app.py", 7, 5, VMSTACK_NAME_AT_LINE);
	name(proc, PY, 0x20, "handler", "app.py", 9, 5, VMSTACK_NAME_AT_LINE);
	name(proc, ODD_PY, 0x30, "lemur", ODD_FILE, 7, 5, VMSTACK_NAME_AT_LINE);
	name(proc, TRACE, 0, "TRACE_3 app.lua:14", "app.lua", 14, 14, 0);
	name(proc, BUILTIN, 0, "pcall", "", 0, 0, 0);
	ADD(&b, 3, 0, leaf, mid, top);
	ADD(&b, 2, 2, K1, K2, leaf, mid, top);
	ADD(&b, 4, 0, leaf, PY, 0x10, LUA, 0, MAIN_CHUNK, 0, mid, top);
	ADD(&b, 1, 0, leaf, PY, 0x20, LUA, 0, MAIN_CHUNK, 0, mid, top);
	ADD(&b, 2, 0, TRACE, LUA, 0, MAIN_CHUNK, 0, mid, top);
	ADD(&b, 1, 0, leaf, BUILTIN, LUA, 0, MAIN_CHUNK, 0, mid, top);
	ADD(&b, 1, 0, leaf, CUT, mid, top);
	ADD(&b, 1, 1, K1, leaf, TRACE, LUA, 0, MAIN_CHUNK, 0, mid, top);
	ADD(&b, 2, 0, leaf, ODD_PY, 0x30, mid, top);
	vmstack_threads_init(&threads);
	vmstack_threads_set(&threads, (uint32_t)getpid(), "fakeprog");
	err = vmstack_raw_write(argv[1], &head, proc, &threads, &b);
	vmstack_threads_free(&threads);
	if (err)
		perror(argv[1]);
	vmstack_process_free(proc);
	free(b.data);
	return err ? 1 : 0;
}
