// SPDX-License-Identifier: GPL-2.0
/*
 * Offsets are those of LuaJIT 2.1 built GC64 (Debian's 2.1.0~beta3+git2022
 * 0320), checked against the installed packages (see the project's notes
 * on VM internals); another build may differ, so detection also requires
 * the interpreter's distinctive unwind rule.
 */
#include <string.h>

#include "symbols.h"
#include "util.h"
#include "vm_luajit.h"

/* The interpreter: one .eh_frame row, CFA = rsp + 80, over > 10000 bytes. */
#define LJ_CFRAME_SIZE		80
#define LJ_MIN_VM_BYTES		10000

static int luajit_file(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libluajit-5.1.so", 16) || !strncmp(base, "luajit", 6);
}

int vmstack_luajit_describe(const struct vmstack_map *m,
			    struct vmstack_vm_desc *d)
{
	struct vmstack_symtab *tab = m->symtab;
	const struct vmstack_cfi_table *cfi;
	uint64_t lo;
	size_t i;

	if (!tab || !luajit_file(m->path) || !(cfi = vmstack_symtab_cfi(tab)) ||
	    vmstack_symtab_vaddr(tab, m->offset, &lo))
		return -1;
	for (i = 0; i + 1 < cfi->n; i++) {
		const struct vmstack_cfi_row *r = &cfi->rows[i];

		if (r->rule.cfa == VMSTACK_UW_CFA_RSP &&
		    r->rule.cfa_off == LJ_CFRAME_SIZE &&
		    cfi->rows[i + 1].vaddr - r->vaddr > LJ_MIN_VM_BYTES &&
		    r->vaddr >= lo && cfi->rows[i + 1].vaddr <= lo + (m->end - m->start))
			break;
	}
	if (i + 1 >= cfi->n)
		return -1;
	memset(d, 0, sizeof(*d));
	d->version = VMSTACK_VM_DESC_VERSION;
	d->size = sizeof(*d);
	d->code_start = m->start + (cfi->rows[i].vaddr - lo);
	d->code_end = m->start + (cfi->rows[i + 1].vaddr - lo);
	/* In the interpreter rsp is the C frame (cframe); lua_State at +0x10. */
	d->state_from = VMSTACK_VM_STATE_AR;
	d->ar_off = 0;
	d->ar_leaf_off = 8;		/* lj_vm_floor/ceil/mod...: called, no frame */
	d->state_off = 0x10;
	d->check_off = 0x09;		/* gct of a lua_State */
	d->check_val = 6;
	d->top_reg = VMSTACK_VM_REG_RDX;	/* BASE */
	d->pc_reg = VMSTACK_VM_REG_RBX;		/* PC */
	d->top_off = 0x20;		/* L->base, current when C is called */
	d->top_adj = -8;		/* the frame link slot, base - 1 */
	d->stack_off = 0x38;		/* L->stack */
	d->stack_max = 1U << 20;	/* LJ_STACK_MAX slots, and then some */
	d->link = VMSTACK_VM_LINK_TAGGED_DELTA;
	d->link_off = 0;
	d->type_mask = 7;
	d->pc_mask = 3;			/* FRAME_LUA / FRAME_LUAP: a return PC */
	d->pc_val = 0;
	d->insn_off = -4;		/* the CALL before the return PC */
	d->insn_shift = 8;		/* its A operand */
	d->insn_bits = 8;
	d->extra = 2;			/* function and link slots */
	d->slot = 8;
	d->bottom_types = 1U << 1 | 1U << 5;	/* FRAME_C, FRAME_CP */
	d->hide_types = 1U << 3;	/* FRAME_VARG: the function shows below it */
	d->func_off = -8;		/* base - 2 */
	d->func_mask = (1ULL << 47) - 1;
	d->kind_off = 0x0a;		/* ffid */
	d->kind_script = 0;		/* FF_LUA */
	d->kind_native = 1;		/* FF_C: a C function */
	d->max_frames = VMSTACK_VM_MAX_FRAMES;
	d->ident_off = 0x20;		/* fn->pc: the first bytecode */
	d->ident_adj = -0x68;		/* ... follows the GCproto */
	d->caller_bp_off = 0x40;	/* saved by the VM's entry */
	d->caller_ra_off = 0x48;
	d->caller_sp_off = 0x50;
	return 0;
}

int vmstack_luajit_name(int pid, uint64_t proto, char *buf, size_t len)
{
	uint64_t chunk;
	uint32_t clen;
	int32_t first;
	char name[200];

	if (read_target(pid, proto + 0x40, &chunk, 8) || read_target(pid, proto + 0x48, &first, 4) ||
	    read_target(pid, chunk + 0x14, &clen, 4))
		return -1;
	if (clen >= sizeof(name))
		clen = sizeof(name) - 1;
	if (read_target(pid, chunk + 0x18, name, clen))
		return -1;
	name[clen] = 0;
	/* "@file" is a file, "=name" a special name, else the source itself. */
	if (name[0] == '@' || name[0] == '=')
		snprintf(buf, len, "%s:%d", name + 1, first);
	else
		snprintf(buf, len, "[string]:%d", first);
	return 0;
}
