/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruby 3.1 (CRuby's VM): what one version's structures look like (struct
 * ruby_layout) and the ABI 4 program that walks its control frames.
 */
#ifndef VMSTACK_VM_RUBY_H
#define VMSTACK_VM_RUBY_H

#include <stdint.h>

#include "vm/prog.h"

struct ruby_layout {
	const char *version;		/* ruby_version: "3.1.2" */
	/* rb_execution_context_t: the VM stack (size in VALUEs), the current frame */
	int32_t ec_vm_stack, ec_vm_stack_size, ec_cfp;
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
};

/* The layout for @ver (ruby_version), or NULL. */
const struct ruby_layout *ruby_layout_of(const char *ver);

/*
 * The program walking the control frames of one vm_exec_core activation,
 * the thread's execution context at fs base + @tls_ec (ruby_current_ec).
 */
void ruby_prog(struct vm_prog *p, const struct ruby_layout *L, int32_t tls_ec);

#endif
