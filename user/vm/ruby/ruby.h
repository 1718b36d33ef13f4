/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruby 3.1 (CRuby's VM): what one version's structures look like (struct
 * ruby_layout) and the ABI 4 program that walks its control frames.
 */
#ifndef VMSTACK_VM_RUBY_H
#define VMSTACK_VM_RUBY_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "vm/prog.h"

struct ruby_layout {
	const char *version;		/* ruby_version: "3.1.2" */
	/* rb_execution_context_t: the VM stack (size in VALUEs), the current frame */
	int32_t ec_vm_stack, ec_vm_stack_size, ec_cfp;
	/* its machine stack (the thread's or the fiber's C stack): top, and bytes below it */
	int32_t ec_stack_start, ec_stack_maxsize;
	/* rb_control_frame_t, and its size: the array's stride */
	int32_t cfp_pc, cfp_iseq, cfp_ep, cfp_size;
	/* the frame's flags at ep[0] */
	uint32_t flag_finish, flag_cframe;
	/* rb_iseq_t's body; rb_iseq_constant_body's location */
	int32_t iseq_body, body_pathobj, body_label, body_first_lineno;
	/* its code and line table: entries (line first), their count, the position index */
	int32_t body_iseq_encoded, body_insns_info, body_insns_size, body_succ_index;
	int32_t insn_info_size;
	/* RBasic flags: type bits; RString and RArray, embedded or not */
	uint32_t type_mask, t_string, t_array, fl_noembed;
	uint32_t str_embed_len_shift, str_embed_len_mask;
	int32_t str_embed, str_len, str_ptr;
	int32_t ary_embed, ary_ptr;
	/*
	 * For the checks only (ruby_check.c): the iseq's size in instructions'
	 * words; the frame magic of ep[0] and the thread's bottom frame's;
	 * an iseq's RBasic type and imemo type; the chain from the VM to its
	 * main thread and back (vm->ractor.main_thread, th->vm, th->ec,
	 * ec->thread_ptr) and the thread's pthread_t, its fs base in glibc.
	 */
	int32_t body_iseq_size;
	uint32_t magic_mask, magic_dummy;
	uint32_t t_imemo, imemo_shift, imemo_mask, imemo_iseq;
	int32_t vm_main_thread, th_vm, th_ec, th_thread_id, ec_thread_ptr;
};

/* The layout for @ver (ruby_version), or NULL. */
const struct ruby_layout *ruby_layout_of(const char *ver);

/*
 * The program walking the control frames of one vm_exec_core activation,
 * the thread's execution context at fs base + @tls_ec (ruby_current_ec).
 */
void ruby_prog(struct vm_prog *p, const struct ruby_layout *L, int32_t tls_ec);

/*
 * Does the file's own code read the structures where @L says: 1, or 0
 * with what disagrees in @why.
 */
int ruby_code_agrees(const struct ruby_layout *L, Elf *elf, char *why, size_t len);

/*
 * Does process @pid's running VM fit @L (its VM pointer at @vm_ptr, its
 * thread's execution context at fs base + @tls_ec): 1 (also when the VM
 * is not up yet), or 0 with what disagrees in @why.
 */
int ruby_process_agrees(const struct ruby_layout *L, int pid, uint64_t vm_ptr, int32_t tls_ec,
			char *why, size_t len);

#endif
