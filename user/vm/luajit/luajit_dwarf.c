// SPDX-License-Identifier: GPL-2.0
/*
 * A LuaJIT build described by its own DWARF (Tarantool's: it links its
 * LuaJIT in and ships full debug info): structure offsets, whether
 * references are 64 or 32 bits (GC64 or not: which frame convention),
 * and the builtin names from the FastFunc enum. Cached by build-id: a
 * program maps its file several times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_types.h"
#include "elf_facts.h"
#include "vm/luajit/luajit.h"

/* Variables a program keeps its main lua_State in (the JIT anchor). */
static const char *const anchors[] = {
	"tarantool_L",		/* Tarantool: src/lua/init.c */
};

/* "FF_io_method_read" as jit.util.funcinfo names it: "file:read". */
static char *display_name(const char *ff)
{
	static const struct {
		const char *prefix, *as;
	} libs[] = {
		{ "io_method_", "file:" }, { "ffi_meta_", "cdata." },
		{ "ffi_clib_", "clib." }, { "ffi_callback_", "callback:" },
		{ "buffer_method_", "buffer:" }, { "buffer_", "string.buffer." },
		{ "jit_util_", "jit.util." }, { "jit_opt_", "jit.opt." },
		{ "jit_profile_", "jit.profile." }, { "coroutine_", "coroutine." },
		{ "math_", "math." }, { "bit_", "bit." }, { "string_", "string." },
		{ "table_", "table." }, { "io_", "io." }, { "os_", "os." },
		{ "debug_", "debug." }, { "jit_", "jit." }, { "ffi_", "ffi." },
		{ "package_", "package." }, { "thread_", "thread." },
	};
	size_t i, n;
	char *s;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		n = strlen(libs[i].prefix);
		if (!strncmp(ff, libs[i].prefix, n)) {
			s = malloc(strlen(libs[i].as) + strlen(ff + n) + 1);
			if (s)
				sprintf(s, "%s%s", libs[i].as, ff + n);
			return s;
		}
	}
	return strdup(ff);	/* the base library: "assert", "ipairs_aux" */
}

struct names {
	char **v;
	size_t n;
};

static void free_names(struct names *nm)
{
	size_t i;

	for (i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
}

/*
 * G->vmstate in a trace exit and in a GC step (lj_obj.h's setvmstate:
 * the state's complement), into @arg's layout.
 */
static void take_vmst(void *arg, const char *name, int64_t value)
{
	struct luajit_layout *l = arg;

	if (value <= 0 || value >= 64)
		return;
	if (!strcmp(name, "LJ_VMST_EXIT"))
		l->vmst_exit = ~(int32_t)value;
	else if (!strcmp(name, "LJ_VMST_GC"))
		l->vmst_gc = ~(int32_t)value;
	else if (!strcmp(name, "LJ_VMST_ASM"))
		l->vmst_asm = ~(int32_t)value;
}

static void take_ff(void *arg, const char *name, int64_t value)
{
	struct names *nm = arg;

	/* FF_LUA_, FF_C_ (0, 1) and FF__MAX are not builtins. */
	if (strncmp(name, "FF_", 3) || value < 2 || value >= 4096 || name[3] == '_')
		return;
	if ((size_t)value >= nm->n) {
		char **v = realloc(nm->v, (size_t)(value + 1) * sizeof(*v));

		if (!v)
			return;
		memset(v + nm->n, 0, (size_t)(value + 1 - nm->n) * sizeof(*v));
		nm->v = v;
		nm->n = (size_t)value + 1;
	}
	free(nm->v[value]);
	nm->v[value] = display_name(name + 3);
}

static struct luajit_layout *from_dwarf(Elf *elf, struct vmstack_dwarf_types *t,
					const char **missing)
{
	struct vmstack_dwarf_query q = { .t = t };
	struct luajit_layout *l = calloc(1, sizeof(*l));
	struct names nm = { NULL, 0 };
	int32_t gg_l, gg_g, gg_j, gg_disp;
	char name[160], version[64] = "2.1";
	GElf_Sym sym;
	long ref;
	size_t i;

	if (!l)
		return NULL;
	ref = vmstack_dwarf_size(t, "GCRef");
	if (ref != 8 && ref != 4) {
		*missing = "GCRef";
		free(l);
		return NULL;
	}
	l->fr = ref == 8 ? &luajit_gc64_frames : &luajit_x64_frames;
	l->gct = vmstack_dwarf_q_off(&q, "lua_State", "gct");
	l->l_base = vmstack_dwarf_q_off(&q, "lua_State", "base");
	l->l_top = vmstack_dwarf_q_off(&q, "lua_State", "top");
	l->l_stack = vmstack_dwarf_q_off(&q, "lua_State", "stack");
	l->l_cframe = vmstack_dwarf_q_off(&q, "lua_State", "cframe");
	l->l_glref = vmstack_dwarf_q_off(&q, "lua_State", "glref");
	l->g_vmstate = vmstack_dwarf_q_off(&q, "global_State", "vmstate");
	l->g_cur_l = vmstack_dwarf_q_off(&q, "global_State", "cur_L");
	l->g_jit_base = vmstack_dwarf_q_off(&q, "global_State", "jit_base");
	l->g_mainthref = vmstack_dwarf_q_off(&q, "global_State", "mainthref");
	gg_l = vmstack_dwarf_q_off(&q, "GG_State", "L");
	gg_g = vmstack_dwarf_q_off(&q, "GG_State", "g");
	gg_j = vmstack_dwarf_q_off(&q, "GG_State", "J");
	gg_disp = vmstack_dwarf_q_off(&q, "GG_State", "dispatch");
	l->g2disp = gg_disp - gg_g;
	l->l2g = gg_g - gg_l;
	l->g_j_trace = gg_j - gg_g + vmstack_dwarf_q_off(&q, "jit_State", "trace");
	l->g_j_sizetrace = gg_j - gg_g + vmstack_dwarf_q_off(&q, "jit_State", "sizetrace");
	l->g_j_mcarea = gg_j - gg_g + vmstack_dwarf_q_off(&q, "jit_State", "mcarea");
	l->fn_ffid = vmstack_dwarf_q_off(&q, "GCfuncC", "ffid");
	l->fn_pc = vmstack_dwarf_q_off(&q, "GCfuncC", "pc");
	l->proto_size = (uint32_t)vmstack_dwarf_q_size(&q, "GCproto");
	l->pt_sizebc = vmstack_dwarf_q_off(&q, "GCproto", "sizebc");
	l->pt_chunkname = vmstack_dwarf_q_off(&q, "GCproto", "chunkname");
	l->pt_firstline = vmstack_dwarf_q_off(&q, "GCproto", "firstline");
	l->pt_numline = vmstack_dwarf_q_off(&q, "GCproto", "numline");
	l->pt_lineinfo = vmstack_dwarf_q_off(&q, "GCproto", "lineinfo");
	l->pt_k = vmstack_dwarf_q_off(&q, "GCproto", "k");
	l->pt_uvinfo = vmstack_dwarf_q_off(&q, "GCproto", "uvinfo");
	l->pt_varinfo = vmstack_dwarf_q_off(&q, "GCproto", "varinfo");
	l->str_len = vmstack_dwarf_q_off(&q, "GCstr", "len");
	l->str_data = vmstack_dwarf_q_size(&q, "GCstr");
	l->tr_startpt = vmstack_dwarf_q_off(&q, "GCtrace", "startpt");
	l->tr_startpc = vmstack_dwarf_q_off(&q, "GCtrace", "startpc");
	l->tr_szmcode = vmstack_dwarf_q_off(&q, "GCtrace", "szmcode");
	l->tr_mcode = vmstack_dwarf_q_off(&q, "GCtrace", "mcode");
	l->tr_traceno = vmstack_dwarf_q_off(&q, "GCtrace", "traceno");
	l->tr_link = vmstack_dwarf_q_off(&q, "GCtrace", "link");
	l->tr_root = vmstack_dwarf_q_off(&q, "GCtrace", "root");
	l->tr_nextside = vmstack_dwarf_q_off(&q, "GCtrace", "nextside");
	l->vmst_exit = l->vmst_gc = l->vmst_asm = 0;
	if (!q.missing && (vmstack_dwarf_enum_of(t, "LJ_VMST_EXIT", take_vmst, l) <= 0 ||
			   !l->vmst_exit || !l->vmst_gc || l->vmst_asm >= l->vmst_exit))
		q.missing = "LJ_VMST_EXIT, LJ_VMST_GC or LJ_VMST_ASM";
	if (q.missing || vmstack_dwarf_enum_of(t, "FF_LUA_", take_ff, &nm) <= 0) {
		*missing = q.missing ? q.missing : "the FastFunc enum (FF_LUA_)";
		free_names(&nm);
		free(l);
		return NULL;
	}
	l->ffid_names = (const char *const *)nm.v;
	l->nffid = nm.n;
	for (i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++)
		if (!vmstack_elf_symbol(elf, anchors[i], &sym) && sym.st_size == 8)
			l->anchor = anchors[i];
	/* luaJIT_version_2_1_0_beta3: the version LUAJIT_VERSION_SYM names. */
	if (!vmstack_elf_symbol_prefix(elf, "luaJIT_version_", version, sizeof(version)))
		for (i = 0; version[i]; i++)
			if (version[i] == '_')
				version[i] = i && version[i - 1] >= '0' && version[i - 1] <= '9' &&
					     version[i + 1] >= '0' && version[i + 1] <= '9' ? '.' : '-';
	/* Without GC64 only the anchor variable leads traces to their VM. */
	snprintf(name, sizeof(name), "LuaJIT %s (%s, from its DWARF)%s", version,
		 l->fr->gc64 ? "GC64" : "32-bit references",
		 l->fr->gc64 || l->anchor ? "" :
		 "; traces not attributed (no main-state variable)");
	l->name = strdup(name);
	if (!l->name) {
		free_names(&nm);
		free(l);
		return NULL;
	}
	return l;
}

/* Builds already described (or found wanting), by build-id. */
static struct described {
	char build_id[88];
	const struct luajit_layout *l;
	char why[160];
} described[8];
static unsigned int ndescribed;

const struct luajit_layout *luajit_dwarf_build(Elf *elf, const char *build_id,
					       char *why, size_t len)
{
	struct vmstack_dwarf_types *t;
	const char *missing = NULL;
	struct described *d;
	unsigned int i;

	for (i = 0; i < ndescribed; i++)
		if (!strcmp(described[i].build_id, build_id)) {
			snprintf(why, len, "%s", described[i].why);
			return described[i].l;
		}
	d = &described[ndescribed < 8 ? ndescribed++ : 7];
	snprintf(d->build_id, sizeof(d->build_id), "%s", build_id);
	d->l = NULL;
	t = vmstack_dwarf_types_open(elf, "lj_");
	if (!t) {
		snprintf(d->why, sizeof(d->why), "a LuaJIT build vmstack does not know (build-id %s) and without DWARF",
			 build_id);
	} else {
		d->l = from_dwarf(elf, t, &missing);
		if (!d->l)
			snprintf(d->why, sizeof(d->why), "a LuaJIT build vmstack does not know (build-id %s) whose DWARF lacks %s",
				 build_id, missing ? missing : "memory");
		vmstack_dwarf_types_close(t);
	}
	snprintf(why, len, "%s", d->why);
	return d->l;
}
