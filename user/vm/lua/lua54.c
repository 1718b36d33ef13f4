// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.4 on x86-64: find its interpreter loop in a mapping, describe its
 * CallInfo frames to the module, name its functions. What a version's
 * structures look like is a struct lua54_layout, chosen by the version the
 * file carries (lua_ident: "$LuaVersion: Lua 5.4.4 ..."); a Lua 5.4 this
 * file has no layout for is named and left native-only.
 *
 * Lua calls Lua without recursing in C: one luaV_execute C frame runs a
 * chain of CallInfos, from the innermost Lua call down to the one marked
 * CIST_FRESH, with which C entered it. GCC keeps that activation's current
 * CallInfo in rbp, a callee-saved register, which the native unwinder
 * recovers in every frame: so each luaV_execute frame on the stack gives
 * its own CallInfo chain, coroutines included, and the module needs no
 * lua_State at all. Where the interpreter does not keep ci in rbp this
 * code refuses it rather than guess. The chain is 5.3's in all that
 * matters (lua53.h): 5.3's ABI 4 program walks it, with 5.4's offsets,
 * and marks tail-called frames (CIST_TAIL), which their callers' calls do
 * not name.
 *
 * The stripped binaries have no symbol for luaV_execute. It is found by
 * its jump table (LUA_USE_JUMPTABLE, on for GCC): a run of NUM_OPCODES
 * relative relocations, all pointing into one function.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi.h"
#include "elf_facts.h"
#include "vm/lua/lua53.h"
#include "vm/lua/lua_code.h"
#include "vm/lua/lua_find.h"
#include "vm/lua/lua_version.h"
#include "vm/runtime.h"
#include "file.h"
#include "util.h"

struct lua54_layout {
	const char *version;		/* as lua_ident names it: "Lua 5.4.4" */
	unsigned int num_opcodes;	/* NUM_OPCODES: the jump table's length */
	struct lua53_layout ci;		/* its CallInfo chain, which 5.3's program walks */
};

/* Lua 5.4.4 (tag v5.4.4: lstate.h, lobject.h): Debian 12's lua5.4 and liblua5.4.so.0. */
static const struct lua54_layout lua544 = {
	.version = "Lua 5.4.4",
	.num_opcodes = 83,
	.ci = {
		.version = "Lua 5.4.4",
		.ci_func = 0x00,	/* StkId: the function's stack slot */
		.ci_previous = 0x10,
		.ci_savedpc = 0x20,
		.ci_callstatus = 0x3e,	/* u16 */
		.cist_fresh = 0x04,
		.cist_tail = 0x20,
		.cist_hooked = 0x08,
		.cist_fin = 0x80,
		.tv_tag = 0x08,
		.tag_lcl = 0x46,	/* LUA_VLCL | BIT_ISCOLLECTABLE */
		.cl_p = 0x18,
		.tproto = 0x0a,		/* LUA_VPROTO */
		.proto = { .gc_tt = 0x08 },
	},
};

static const struct lua54_layout *const lua54_layouts[] = { &lua544 };

const struct lua53_layout *vmstack_lua544_ci(void)
{
	return &lua544.ci;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The function (FDE range) that a run of jump-table relocations targets. */
static int find_execute(const struct lua54_layout *L, Elf *elf, uint64_t *lo, uint64_t *hi)
{
	struct { uint64_t where, target; } *r = NULL;
	size_t n = 0, cap = 0, i, j;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = -1;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Rela rela;
		size_t k, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < cnt && gelf_getrela(data, (int)k, &rela); k++) {
			if (GELF_R_TYPE(rela.r_info) != R_X86_64_RELATIVE)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				r = realloc(r, cap * sizeof(*r));
				if (!r)
					return -1;
			}
			r[n].where = rela.r_offset;
			r[n++].target = (uint64_t)rela.r_addend;
		}
	}
	qsort(r, n, sizeof(*r), cmp_u64);
	/* Runs of consecutive pointers; the table may sit inside a longer run. */
	for (i = 0; i + L->num_opcodes <= n && ret; i++) {
		uint64_t min = UINT64_MAX, max = 0, s, e;

		for (j = i + 1; j < i + L->num_opcodes; j++)
			if (r[j].where != r[j - 1].where + 8)
				break;
		if (j < i + L->num_opcodes)
			continue;
		for (j = i; j < i + L->num_opcodes; j++) {
			min = r[j].target < min ? r[j].target : min;
			max = r[j].target > max ? r[j].target : max;
		}
		/* Handlers of one loop: close together, in one function. */
		if (max - min < (1 << 20) && !vmstack_cfi_fde_range(elf, min, &s, &e) &&
		    max < e) {
			*lo = s;
			*hi = e;
			ret = 0;
		}
	}
	free(r);
	return ret;
}

/* Whether the code at @vaddr moves its second argument (ci) into rbp. */
static int keeps_ci_in_rbp(Elf *elf, uint64_t vaddr)
{
	static const unsigned char rsi_to_r13[] = { 0x49, 0x89, 0xf5 };
	static const unsigned char r13_to_rbp[] = { 0x4c, 0x89, 0xed };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		const unsigned char *p;
		size_t len;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		p = (const unsigned char *)data->d_buf + (vaddr - sh.sh_addr);
		len = sh.sh_addr + sh.sh_size - vaddr;
		len = len < 64 ? len : 64;
		return memmem(p, len, rsi_to_r13, 3) && memmem(p, len, r13_to_rbp, 3);
	}
	return 0;
}

static enum vmstack_detect lua54_detect(const struct vmstack_map *m, int pid,
					struct vmstack_vm_found *f, char *why,
					size_t len)
{
	Elf *elf = m->file ? vmstack_file_elf(m->file) : NULL;
	const struct lua54_layout *L = NULL;
	static struct vm_prog p;	/* 6 KB: not on the stack */
	uint64_t lo, start, end;
	char version[32];
	size_t i;

	if (!elf || vmstack_lua_version(elf, version, sizeof(version)) ||
	    strncmp(version, "Lua 5.4", 7) || vmstack_file_vaddr(m->file, m->offset, &lo))
		return VMSTACK_DETECT_NO;
	for (i = 0; i < sizeof(lua54_layouts) / sizeof(lua54_layouts[0]); i++)
		if (!strcmp(lua54_layouts[i]->version, version))
			L = lua54_layouts[i];
	if (!L) {
		snprintf(why, len, "%s, a version vmstack does not know", version);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (find_execute(L, elf, &start, &end)) {
		snprintf(why, len, "no interpreter loop found (no jump table of %u opcodes)",
			 L->num_opcodes);
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (!keeps_ci_in_rbp(elf, start)) {
		snprintf(why, len, "this build's interpreter loop does not keep its CallInfo in rbp");
		return VMSTACK_DETECT_UNKNOWN;
	}
	if (start < lo || end > lo + (m->end - m->start))
		return VMSTACK_DETECT_NO;	/* another mapping of the file holds the code */
	vmstack_lua53_prog(&L->ci, &p);
	return vmstack_lua_found(m, pid, elf, lo, start, end, &p, &vmstack_lua54_code,
				 L->version, f, why, len);
}

const struct vmstack_runtime vmstack_rt_lua54 = {
	.name = "lua5.4",
	.alias = "lua54",
	.label = "Lua 5.4",
	.help = "Lua 5.4 in any mapped file of a known version (5.4.4)",
	.detect = lua54_detect,
	.namer = vmstack_lua_frame_name,
	.site_namer = vmstack_lua_site_name,
	.across_mask = VMSTACK_LUA_ACROSS_MASK,
	.across_bits = VMSTACK_LUA_PC_FROM_LUA,
	.names_by_pc = true,
};
