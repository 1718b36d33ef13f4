// SPDX-License-Identifier: GPL-2.0
/* VM runtimes found in the installed files; descriptors in text. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "unit.h"
#include "vm_file.h"
#include "vm_lua54.h"
#include "vm_luajit.h"

/* The interpreter loop of a Lua 5.4 file, as a mapping at 0x10000000. */
static int lua54_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	struct vmstack_symtab t = { .fd = -1 };
	struct vmstack_map m = { .start = 0x10000000, .end = 0x20000000 };
	struct vmstack_vm_desc d;
	const char *why = NULL;
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0 || vmstack_symtab_load_elf(&t, fd))
		return -3;
	m.path = (char *)path;
	m.symtab = &t;
	ret = vmstack_lua54_describe(&m, &d, &why);
	if (!ret) {
		*lo = d.code_start - m.start;
		*hi = d.code_end - m.start;
		CHECK(d.link == VMSTACK_VM_LINK_POINTER);
		CHECK(d.top_reg == VMSTACK_VM_REG_RBP);
	}
	vmstack_symtab_free(&t);
	return ret;
}

/* Ranges from the project's notes on VM internals (Debian 12 packages). */
UNIT_TEST(lua54_interpreter_found)
{
	uint64_t lo = 0, hi = 0;

	CHECK(lua54_range("/usr/bin/lua5.4", &lo, &hi) == 0);
	CHECK(lo == 0x1b3a0 && hi == 0x1ef0a);
	CHECK(lua54_range("/usr/lib/x86_64-linux-gnu/liblua5.4.so.0", &lo, &hi) == 0);
	CHECK(lo == 0x1ef00 && hi == 0x22a6a);
	/* Not Lua 5.4: not claimed. */
	CHECK(lua54_range("/usr/bin/luajit", &lo, &hi) == -1);
}

UNIT_TEST(vm_text_parse)
{
	struct vmstack_vm_text t[4];
	char err[256];

	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nname x\nnamer cstring\n"
				    "code_start 0x1000 # a comment\ncode_end 0x2000\n"
				    "state_from global\nstate_addr 4096\nlink pointer\n"
				    "top_adj -16\nflags native_step,frame_pc\nmax_frames 9\n"
				    "end\nvmstack-vm 2\nname y\n", t, 4, err, sizeof(err)) == 1);
	CHECK(!strcmp(t[0].name, "x") && t[0].namer == VMSTACK_NAMER_CSTRING);
	CHECK(t[0].desc.code_start == 0x1000 && t[0].desc.code_end == 0x2000);
	CHECK(t[0].desc.state_from == VMSTACK_VM_STATE_GLOBAL);
	CHECK(t[0].desc.state_addr == 4096 && t[0].desc.top_adj == -16);
	CHECK(t[0].desc.flags == (VMSTACK_VM_F_NATIVE_STEP | VMSTACK_VM_F_FRAME_PC));
	CHECK(t[0].desc.max_frames == 9);
	/* Version 3 adds compiled code, continuation bottoms, activation chains. */
	CHECK(vmstack_vm_text_parse("vmstack-vm 3\njit_reg r14\njit_anchor_adj -3968\n"
				    "flags jit,cont_bottom,ar_empty,ar_chain\nar_empty_off 8\n"
				    "cont_type 2\ncont_off -24\n"
				    "cont_val 1\njit_ar_mask 3\nar_prev_off 0x20\n"
				    "ar_chain_max 64\nend\n", t, 4, err, sizeof(err)) == 1);
	CHECK(t[0].desc.jit_reg == VMSTACK_VM_REG_R14 && t[0].desc.jit_anchor_adj == -0xf80);
	CHECK(t[0].desc.flags == (VMSTACK_VM_F_JIT | VMSTACK_VM_F_CONT_BOTTOM |
				  VMSTACK_VM_F_AR_EMPTY | VMSTACK_VM_F_AR_CHAIN) &&
	      t[0].desc.ar_empty_off == 8);
	CHECK(t[0].desc.cont_off == -24 && t[0].desc.cont_val == 1 && t[0].desc.ar_mask == 3);
	CHECK(t[0].desc.ar_prev_off == 0x20 && t[0].desc.ar_chain_max == 64);
	/* Every mistake names its line. */
	CHECK(vmstack_vm_text_parse("vmstack-vm 1\n", t, 4, err, sizeof(err)) == -1);
	CHECK(strstr(err, "line 1"));
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\n\nmax_frames 70000\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(strstr(err, "line 3") && strstr(err, "max_frames"));
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nstack_max -1\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nflags fast\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("vmstack-vm 2\nno_such_field 1\n", t, 4, err,
				    sizeof(err)) == -1);
	CHECK(vmstack_vm_text_parse("code_start 1\n", t, 4, err, sizeof(err)) == -1);
}

/* Builtin names: the table against the installed luajit's own report. */
UNIT_TEST(luajit_builtin_names)
{
	FILE *p = popen("luajit tests/workloads/lua/ffid.lua", "r");
	unsigned int ffid, seen = 0, i;
	char name[64];

	CHECK(p != NULL);
	if (!p)
		return;
	while (fscanf(p, "%u %63s", &ffid, name) == 2) {
		const char *ours = vmstack_luajit_ffid_name(ffid);

		CHECK(ours && !strcmp(ours, name));
		seen++;
	}
	CHECK(pclose(p) == 0);
	for (i = 0, ffid = 0; i < 1000; i++)
		ffid += vmstack_luajit_ffid_name(i) != NULL;
	CHECK(seen > 150 && ffid == seen);
}

void vm_tests(void)
{
	static const struct unit_test t[] = {
		{ "lua54_interpreter_found", lua54_interpreter_found },
		{ "vm_text_parse", vm_text_parse },
		{ "luajit_builtin_names", luajit_builtin_names },
	};
	unit_run(t, 3);
}
