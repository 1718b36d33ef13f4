// SPDX-License-Identifier: GPL-2.0
/*
 * The text form of struct vmstack_vm_desc: one "key value" per line, the
 * keys named as the struct's fields, so vm/desc3.h documents them.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "runtime.h"
#include "text.h"

struct field {
	const char *key;
	size_t off, size;
	int is_signed;
};

#define F(k, s) { #k, offsetof(struct vmstack_vm_desc, k), \
		  sizeof(((struct vmstack_vm_desc *)0)->k), s }
static const struct field fields[] = {
	F(code_start, 0), F(code_end, 0), F(state_addr, 0), F(func_mask, 0),
	F(ar_off, 1), F(ar_leaf_off, 1), F(state_off, 1), F(check_off, 1),
	F(top_off, 1), F(top_adj, 1), F(stack_off, 1), F(stack_max, 0),
	F(link_off, 1), F(type_mask, 0), F(pc_mask, 0), F(pc_val, 0),
	F(insn_off, 1), F(bottom_types, 0), F(hide_types, 0),
	F(flags_off, 1), F(bottom_flags, 0), F(native_flags, 0),
	F(frame_pc_off, 1), F(func_off, 1), F(kind_off, 1), F(ident_off, 1),
	F(ident_adj, 1), F(ident_check_off, 1), F(caller_bp_off, 1),
	F(caller_ra_off, 1), F(caller_sp_off, 1), F(max_frames, 0),
	F(check_val, 0), F(ident_check_val, 0), F(kind_script, 0),
	F(kind_native, 0), F(insn_shift, 0), F(insn_bits, 0), F(extra, 0),
	F(slot, 0), F(ar_empty_off, 1), F(cont_type, 0), F(cont_off, 1), F(cont_val, 0),
	F(jit_anchor_adj, 1), F(jit_id_off, 1), F(jit_table_off, 1),
	F(jit_count_off, 1), F(jit_code_off, 1), F(jit_size_off, 1),
	F(jit_state_off, 1), F(jit_top_off, 1), F(state_ar_off, 1),
	F(ar_mask, 0), F(ar_prev_off, 1), F(ar_chain_max, 0),
	F(jit_link_off, 1), F(jit_root_off, 1), F(jit_side_off, 1), F(jit_near_max, 0),
	F(jit_anchor_ptr, 0), F(thr_head_off, 1), F(thr_next_off, 1), F(thr_tid_off, 1),
	F(thr_max, 0), F(kind_word, 0), F(func_check_off, 1), F(pc_size_off, 1),
	F(func_check_val, 0), F(kind_max, 0), F(pc_unit, 0),
};

/* Fields renamed since texts were first written: the old keys still work. */
static const struct {
	const char *old, *now;
} aliases[] = {
	{ "jit_ar_off", "state_ar_off" },
	{ "jit_ar_mask", "ar_mask" },
};

struct word {
	const char *name;
	unsigned int value;
};

static const struct word states[] = {
	{ "none", VMSTACK_VM_STATE_NONE }, { "ar", VMSTACK_VM_STATE_AR },
	{ "global", VMSTACK_VM_STATE_GLOBAL }, { "thread", VMSTACK_VM_STATE_THREAD },
	{ NULL, 0 } };
static const struct word links[] = {
	{ "pointer", VMSTACK_VM_LINK_POINTER },
	{ "tagged_delta", VMSTACK_VM_LINK_TAGGED_DELTA }, { NULL, 0 } };
static const struct word regs[] = {
	{ "none", VMSTACK_VM_REG_NONE }, { "rax", VMSTACK_VM_REG_RAX },
	{ "rbx", VMSTACK_VM_REG_RBX }, { "rcx", VMSTACK_VM_REG_RCX },
	{ "rdx", VMSTACK_VM_REG_RDX }, { "rsi", VMSTACK_VM_REG_RSI },
	{ "rdi", VMSTACK_VM_REG_RDI }, { "r12", VMSTACK_VM_REG_R12 },
	{ "r13", VMSTACK_VM_REG_R13 }, { "r14", VMSTACK_VM_REG_R14 },
	{ "r15", VMSTACK_VM_REG_R15 }, { "rbp", VMSTACK_VM_REG_RBP },
	{ NULL, 0 } };
static const struct word flag_words[] = {
	{ "native_step", VMSTACK_VM_F_NATIVE_STEP },
	{ "func_slot", VMSTACK_VM_F_FUNC_SLOT },
	{ "frame_pc", VMSTACK_VM_F_FRAME_PC },
	{ "no_builtins", VMSTACK_VM_F_NO_BUILTINS },
	{ "ident_check", VMSTACK_VM_F_IDENT_CHECK }, { "jit", VMSTACK_VM_F_JIT },
	{ "cont_bottom", VMSTACK_VM_F_CONT_BOTTOM }, { "ar_empty", VMSTACK_VM_F_AR_EMPTY },
	{ "ar_chain", VMSTACK_VM_F_AR_CHAIN }, { "jit_near", VMSTACK_VM_F_JIT_NEAR },
	{ "ref32", VMSTACK_VM_F_REF32 }, { "top_ar", VMSTACK_VM_F_TOP_AR },
	{ "func_ident", VMSTACK_VM_F_FUNC_IDENT }, { "kind_word", VMSTACK_VM_F_KIND_WORD },
	{ "func_check", VMSTACK_VM_F_FUNC_CHECK }, { "pc_check", VMSTACK_VM_F_PC_CHECK },
	{ "builtin_kind", VMSTACK_VM_F_BUILTIN_KIND },
	{ NULL, 0 } };

static int lookup(const struct word *w, const char *s, unsigned int *v)
{
	for (; w->name; w++)
		if (!strcmp(w->name, s)) {
			*v = w->value;
			return 0;
		}
	return -1;
}

/* A whole integer that fits the field. */
static int parse_int(const char *s, const struct field *f, struct vmstack_vm_desc *d)
{
	char *end;
	long long sv = 0;
	unsigned long long uv = 0;
	unsigned char *p = (unsigned char *)d + f->off;

	errno = 0;
	if (f->is_signed)
		sv = strtoll(s, &end, 0);
	else if (*s == '-')
		return -1;
	else
		uv = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	if (f->is_signed) {
		int32_t v32 = (int32_t)sv;

		if (f->size != 4 || sv != v32)
			return -1;
		memcpy(p, &v32, 4);
		return 0;
	}
	if (f->size < 8 && uv >> (8 * f->size))
		return -1;
	switch (f->size) {
	case 1: *p = (uint8_t)uv; break;
	case 2: { uint16_t v = (uint16_t)uv; memcpy(p, &v, 2); break; }
	case 4: { uint32_t v = (uint32_t)uv; memcpy(p, &v, 4); break; }
	default: memcpy(p, &uv, 8); break;
	}
	return 0;
}

static int parse_line(char *key, char *val, struct vmstack_vm_text *t)
{
	struct vmstack_vm_desc *d = &t->desc;
	unsigned int v;
	size_t i;

	if (!strcmp(key, "name")) {
		snprintf(t->name, sizeof(t->name), "%s", val);
		return 0;
	}
	if (!strcmp(key, "namer")) {
		t->namer = vmstack_runtime_find(val);
		return t->namer ? 0 : -1;
	}
	if (!strcmp(key, "state_from") || !strcmp(key, "link") ||
	    !strcmp(key, "top_reg") || !strcmp(key, "pc_reg") || !strcmp(key, "jit_reg")) {
		const struct word *w = key[0] == 's' ? states : key[0] == 'l' ? links : regs;

		if (lookup(w, val, &v))
			return -1;
		if (key[0] == 's')
			d->state_from = (uint8_t)v;
		else if (key[0] == 'l')
			d->link = (uint8_t)v;
		else if (key[0] == 't')
			d->top_reg = (uint8_t)v;
		else if (key[0] == 'j')
			d->jit_reg = (uint8_t)v;
		else
			d->pc_reg = (uint8_t)v;
		return 0;
	}
	if (!strcmp(key, "flags")) {
		char *tok, *save = NULL;

		for (tok = strtok_r(val, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (lookup(flag_words, tok, &v))
				return -1;
			d->flags |= v;
		}
		return 0;
	}
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(key, aliases[i].old))
			key = (char *)aliases[i].now;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(key, fields[i].key))
			return parse_int(val, &fields[i], d);
	return -1;
}

int vmstack_vm_text_parse(const char *text, struct vmstack_vm_text *out,
			  size_t max, char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *next;
	struct vmstack_vm_text cur;
	int in = 0, lineno = 0;
	size_t n = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (line = copy; line; line = next) {
		char *key, *val, *hash;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = 0;
		key = line + strspn(line, " \t");
		if (!*key)
			continue;
		val = key + strcspn(key, " \t");
		if (*val)
			*val++ = 0;
		val += strspn(val, " \t");
		val[strcspn(val, " \t\r")] = 0;
		if (!strcmp(key, "vmstack-vm")) {
			unsigned long v = strtoul(val, NULL, 10);

			/* Version 3 only added fields: a version 2 text is one. */
			if (in || v < 2 || v > VMSTACK_VM_TEXT_VERSION) {
				snprintf(err, errlen, "line %d: expected 'vmstack-vm %d'%s",
					 lineno, VMSTACK_VM_TEXT_VERSION,
					 in ? " after 'end'" : "");
				goto fail;
			}
			memset(&cur, 0, sizeof(cur));
			snprintf(cur.name, sizeof(cur.name), "vm");
			cur.namer = &vmstack_rt_cstring;
			in = 1;
		} else if (!in) {
			snprintf(err, errlen, "line %d: '%s' outside a 'vmstack-vm' block",
				 lineno, key);
			goto fail;
		} else if (!strcmp(key, "end")) {
			in = 0;
			if (n < max)
				out[n++] = cur;
		} else if (!*val || parse_line(key, val, &cur)) {
			snprintf(err, errlen, "line %d: bad %s '%s'", lineno, key, val);
			goto fail;
		}
	}
	free(copy);
	return (int)n;
fail:
	free(copy);
	return -1;
}

/* The NUL-terminated string at a script frame's identity: its function. */
static int cstring_name(const void *build, int pid, const struct vmstack_frame *f,
			struct vmstack_name_buf *out)
{
	char *buf = out->function;
	struct iovec local = { buf, sizeof(out->function) - 1 };
	struct iovec remote = { (void *)(uintptr_t)f->value, sizeof(out->function) - 1 };
	ssize_t n;

	(void)build;
	/* Builtins and compiled code of a custom VM have no names to read. */
	if (f->kind != VMSTACK_FRAME_SCRIPT)
		return -1;
	/* A read may stop at the end of a mapping: what came is enough. */
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return buf[0] ? 0 : -1;
}

/* Names only: what a VM that describes itself in text may ask for. */
const struct vmstack_runtime vmstack_rt_cstring = {
	.name = "cstring",
	.label = "registered VM",
	.namer = cstring_name,
};
