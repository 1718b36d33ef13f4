// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_facts.h"
#include "maps.h"
#include "unwind/cfi.h"
#include "util.h"
#include "vm/lua/lua_find.h"
#include "vm/prog.h"

#define LOOP_HEAD	96	/* bytes of a function's start a test sees */
#define MAX_FUNCS	64	/* functions looked at, all levels */
#define MAX_BODY	4096	/* bytes of an API function or luaD_call scanned for calls */

/*
 * The functions @fn calls directly (E8 rel32) whose target starts an FDE:
 * a byte E8 inside another instruction seldom lands on a function's
 * first byte, and a false one only adds a candidate the test refuses.
 */
static size_t callees(Elf *elf, uint64_t fn, uint64_t *out, uint64_t *by, size_t n,
		      size_t max)
{
	unsigned char *code;
	uint64_t s, e, len, t, ts, te;
	size_t i, k;
	int32_t rel;

	if (vmstack_cfi_fde_range(elf, fn, &s, &e) || s != fn)
		return n;
	len = e - s < MAX_BODY ? e - s : MAX_BODY;
	code = malloc(len);
	if (!code || vmstack_elf_read(elf, s, code, len)) {
		free(code);
		return n;
	}
	for (i = 0; i + 5 <= len && n < max; i++) {
		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, 4);
		t = s + i + 5 + (int64_t)rel;
		if (vmstack_cfi_fde_range(elf, t, &ts, &te) || ts != t)
			continue;
		for (k = 0; k < n && out[k] != t; k++)
			;
		if (k == n) {
			by[n] = fn;
			out[n++] = t;
		}
	}
	free(code);
	return n;
}

int vmstack_lua_find_loop(Elf *elf, const char *api, unsigned int depth,
			  lua_loop_test *test, void *arg, uint64_t *lo, uint64_t *hi,
			  uint64_t *caller)
{
	uint64_t funcs[MAX_FUNCS], by[MAX_FUNCS], found = 0, found_by = 0;
	unsigned char head[LOOP_HEAD];
	size_t n = 1, from = 0, to, i;
	unsigned int level;
	GElf_Sym sym;

	if (vmstack_elf_symbol(elf, api, &sym) || !sym.st_value)
		return -1;
	funcs[0] = sym.st_value;
	for (level = 0; level < depth; level++) {
		to = n;
		for (i = from; i < to; i++)
			n = callees(elf, funcs[i], funcs, by, n, MAX_FUNCS);
		from = to;
	}
	for (i = 1; i < n; i++) {
		if (vmstack_elf_read(elf, funcs[i], head, sizeof(head)) ||
		    test(head, sizeof(head), arg))
			continue;
		if (found)
			return -1;	/* two candidates: the test is not sharp enough */
		found = funcs[i];
		found_by = by[i];
	}
	if (!found || vmstack_cfi_fde_range(elf, found, lo, hi))
		return -1;
	if (caller)
		*caller = found_by;
	return 0;
}

enum vmstack_detect vmstack_lua_found(const struct vmstack_map *m, int pid, Elf *elf,
				      uint64_t lo, uint64_t start, uint64_t end,
				      struct vm_prog *p, const struct lua_code_facts *code,
				      const char *name, struct vmstack_vm_found *f, char *why,
				      size_t len)
{
	struct vmstack_vm_desc4 *d = &f->desc4;
	unsigned char want[64], got[64];
	const char *err;
	GElf_Sym sym;

	if (pid && (vmstack_elf_read(elf, start, want, sizeof(want)) ||
		    read_target(pid, m->start + (start - lo), got, sizeof(got)) ||
		    memcmp(want, got, sizeof(want)))) {
		snprintf(why, len, "the process's luaV_execute differs from its file's");
		return VMSTACK_DETECT_UNKNOWN;
	}
	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	d->flags = VMSTACK_VM4_F_NATIVE_STEP;
	d->ranges[0].start = m->start + (start - lo);
	d->ranges[0].end = m->start + (end - lo);
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	err = vm_prog_end(p, d);
	if (err) {
		snprintf(why, len, "its program does not assemble: %s", err);
		return VMSTACK_DETECT_UNKNOWN;
	}
	f->prog = true;
	f->build = code;
	f->build_name = name;
	/*
	 * A frame named across native frames is named by no frame past
	 * lua_resume's: those are the resuming thread's (the resumed
	 * thread's own caller may have no luaV_execute left: 5.3's unroll).
	 * Not found: none is named across.
	 */
	if (!vmstack_elf_symbol(elf, "lua_resume", &sym) && sym.st_value >= lo && sym.st_size &&
	    sym.st_value + sym.st_size <= lo + (m->end - m->start)) {
		f->across_stop_lo = m->start + (sym.st_value - lo);
		f->across_stop_hi = f->across_stop_lo + sym.st_size;
	}
	return VMSTACK_DETECT_YES;
}

int vmstack_lua_has(const unsigned char *code, size_t len, const unsigned char *what,
		    size_t n)
{
	return memmem(code, len, what, n) != NULL;
}
