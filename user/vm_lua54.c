// SPDX-License-Identifier: GPL-2.0
/*
 * Lua 5.4.4 layouts (lstate.h, lobject.h), checked against Debian 12's
 * packages (see the project's notes on VM internals).
 *
 * Lua calls Lua without recursing in C: one luaV_execute C frame runs a
 * chain of CallInfos, from the innermost Lua call down to the one marked
 * CIST_FRESH, with which C entered it. GCC keeps that activation's current
 * CallInfo in rbp, a callee-saved register, which the native unwinder
 * recovers in every frame: so each luaV_execute frame on the stack gives
 * its own CallInfo chain, coroutines included, and the module needs no
 * lua_State at all. Where the interpreter does not keep ci in rbp this
 * code refuses it rather than guess.
 *
 * The stripped binaries have no symbol for luaV_execute. It is found by
 * its jump table (LUA_USE_JUMPTABLE, on for GCC): a run of NUM_OPCODES
 * relative relocations, all pointing into one function.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "symbols.h"
#include "util.h"
#include "vm_lua54.h"

#define LUA54_NUM_OPCODES	83
#define LUA54_CI_FUNC		0x00	/* StkId: the function's stack slot */
#define LUA54_CI_PREVIOUS	0x10
#define LUA54_CI_SAVEDPC	0x20
#define LUA54_CI_CALLSTATUS	0x3e	/* u16 */
#define LUA54_CIST_C		0x02
#define LUA54_CIST_FRESH	0x04
#define LUA54_TV_TAG		0x08	/* a TValue's tag, after its value */
#define LUA54_TAG_LCL		0x46	/* a Lua closure, collectable */
#define LUA54_CL_P		0x18	/* LClosure.p: its Proto */
#define LUA54_GC_TT		0x08	/* a GC object's type byte */
#define LUA54_TT_PROTO		0x0a
#define LUA54_P_LINEDEFINED	0x2c
#define LUA54_P_SOURCE		0x70	/* TString * */
#define LUA54_TS_TT		0x08
#define LUA54_TS_SHRLEN		0x0b
#define LUA54_TS_LNGLEN		0x10
#define LUA54_TS_CONTENTS	0x18
#define LUA54_TT_SHRSTR		0x04

static int lua54_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "liblua5.4.so", 12) || !strcmp(base, "lua5.4");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The function (FDE range) that a run of jump-table relocations targets. */
static int find_execute(Elf *elf, uint64_t *lo, uint64_t *hi)
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
	for (i = 0; i + LUA54_NUM_OPCODES <= n && ret; i++) {
		uint64_t min = UINT64_MAX, max = 0, s, e;

		for (j = i + 1; j < i + LUA54_NUM_OPCODES; j++)
			if (r[j].where != r[j - 1].where + 8)
				break;
		if (j < i + LUA54_NUM_OPCODES)
			continue;
		for (j = i; j < i + LUA54_NUM_OPCODES; j++) {
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

int vmstack_lua54_describe(const struct vmstack_map *m,
			   struct vmstack_vm_desc *d, const char **why)
{
	struct vmstack_symtab *tab = m->symtab;
	uint64_t lo, start, end;

	if (!tab || !tab->elf || !lua54_file(m->path) ||
	    vmstack_symtab_vaddr(tab, m->offset, &lo))
		return -1;
	if (find_execute(tab->elf, &start, &end)) {
		*why = "no interpreter loop found (no jump table of 83 opcodes)";
		return -2;
	}
	if (!keeps_ci_in_rbp(tab->elf, start)) {
		*why = "this build's interpreter loop does not keep its CallInfo in rbp";
		return -2;
	}
	if (start < lo || end > lo + (m->end - m->start))
		return -1;	/* another mapping of the file holds the code */
	memset(d, 0, sizeof(*d));
	d->code_start = m->start + (start - lo);
	d->code_end = m->start + (end - lo);
	d->state_from = VMSTACK_VM_STATE_NONE;
	d->top_reg = VMSTACK_VM_REG_RBP;
	d->link = VMSTACK_VM_LINK_POINTER;
	d->link_off = LUA54_CI_PREVIOUS;
	d->flags_off = LUA54_CI_CALLSTATUS;
	d->bottom_flags = LUA54_CIST_FRESH;
	d->native_flags = LUA54_CIST_C;
	d->flags = VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FUNC_SLOT |
		   VMSTACK_VM_F_FRAME_PC | VMSTACK_VM_F_NO_BUILTINS |
		   VMSTACK_VM_F_IDENT_CHECK;
	d->func_off = LUA54_CI_FUNC;
	d->func_mask = ~0ULL;
	d->kind_off = LUA54_TV_TAG;
	d->kind_script = LUA54_TAG_LCL;
	d->kind_native = 0xff;		/* no such tag: CIST_C marks them */
	d->ident_off = LUA54_CL_P;
	d->ident_check_off = LUA54_GC_TT;
	d->ident_check_val = LUA54_TT_PROTO;
	d->frame_pc_off = LUA54_CI_SAVEDPC;
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	return 0;
}

int vmstack_lua54_name(int pid, uint64_t word, char *buf, size_t len)
{
	uint64_t proto = vmstack_vmw_value(word), src, slen = 0;
	uint8_t tt, shr;
	int32_t first;
	char name[200];

	if (vmstack_vmw_kind(word) != VMSTACK_VMW_SCRIPT)
		return -1;
	if (read_target(pid, proto + LUA54_P_SOURCE, &src, 8) ||
	    read_target(pid, proto + LUA54_P_LINEDEFINED, &first, 4))
		return -1;
	/* A stripped dump has no source (lua_getinfo says "=?"). */
	if (!src) {
		snprintf(buf, len, "?:%d", first);
		return 0;
	}
	if (read_target(pid, src + LUA54_TS_TT, &tt, 1))
		return -1;
	if ((tt & 0x0f) != LUA54_TT_SHRSTR)
		return -1;
	if (tt == LUA54_TT_SHRSTR) {
		if (read_target(pid, src + LUA54_TS_SHRLEN, &shr, 1))
			return -1;
		slen = shr;
	} else if (read_target(pid, src + LUA54_TS_LNGLEN, &slen, 8)) {
		return -1;
	}
	if (slen >= sizeof(name))
		slen = sizeof(name) - 1;
	if (read_target(pid, src + LUA54_TS_CONTENTS, name, slen))
		return -1;
	name[slen] = 0;
	lua_chunk_line(buf, len, name, first);
	return 0;
}
