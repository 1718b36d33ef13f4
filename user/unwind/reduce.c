// SPDX-License-Identifier: GPL-2.0
/*
 * The one reducer: a frame's state, as either reader fills it, to the rule
 * the module applies at sample time (CFA = rsp|rbp + N, return address at
 * CFA - 8, rbp saved at CFA + M or unchanged), or to "use the frame
 * pointer" with the reason named; and the rows so made, appended to the
 * file's table. One file, so that the reducer inlines into the append:
 * the direct reader makes a row per advance, and a call more per row made
 * it about 7% slower (python3.11's 64,572 rows).
 */
#include <string.h>

#include "unwind/frame_state.h"
#include "util.h"

static enum vmstack_cfi_refusal reduce(const struct frame_state *st,
				       struct vmstack_uw_row *r)
{
	/*
	 * The PLT expression's first instructions (rsp + 8) are where a
	 * sample lands; the exact rule is not worth an expression evaluator.
	 */
	int plt = st->cfa == CFA_PLT;
	int reg = plt ? DW_REG_RSP : st->cfa_reg;
	int64_t off = plt ? 8 : st->cfa_off;

	memset(r, 0, sizeof(*r));
	r->cfa = VMSTACK_UW_FP;
	if (st->signal) {
		/* The module reads the interrupted registers from the ucontext. */
		r->cfa = VMSTACK_UW_SIGNAL;
		return VMSTACK_CFI_REDUCED;
	}
	if (st->cfa == CFA_EXPRESSION)
		return VMSTACK_CFI_CFA_EXPRESSION;
	if (reg != DW_REG_RSP && reg != DW_REG_RBP)
		return VMSTACK_CFI_CFA_REGISTER;
	if (off < INT32_MIN || off > INT32_MAX)
		return VMSTACK_CFI_CFA_OFFSET;
	if (!plt && (st->ra != SAVED_AT_CFA || st->ra_off != -8))
		return VMSTACK_CFI_RA_ELSEWHERE;
	r->cfa = reg == DW_REG_RSP ? VMSTACK_UW_CFA_RSP : VMSTACK_UW_CFA_RBP;
	r->cfa_off = (int32_t)off;
	/*
	 * rbp is callee-saved: a rule that does not say where it is, keeps it.
	 * One saved out of the row's 16-bit reach is taken as unchanged too.
	 */
	r->rbp = VMSTACK_UW_RBP_SAME;
	if (st->rbp == SAVED_AT_CFA && st->rbp_off >= INT16_MIN && st->rbp_off <= INT16_MAX) {
		r->rbp = VMSTACK_UW_RBP_SAVED;
		r->rbp_off = (int16_t)st->rbp_off;
	}
	return VMSTACK_CFI_REDUCED;
}

static void add_row(struct vmstack_cfi_table *t, uint64_t vaddr,
		    const struct vmstack_uw_row *rule)
{
	struct vmstack_cfi_row *last = t->n ? &t->rows[t->n - 1] : NULL;

	/* Adjacent identical rules merge into one row. */
	if (last && last->rule.cfa == rule->cfa &&
	    last->rule.cfa_off == rule->cfa_off && last->rule.rbp == rule->rbp &&
	    last->rule.rbp_off == rule->rbp_off)
		return;
	if (last && last->vaddr == vaddr) {
		last->rule = *rule;
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	t->rows[t->n].vaddr = vaddr;
	t->rows[t->n].rule = *rule;
	t->n++;
}

void cfi_table_add_state(struct vmstack_cfi_table *t, uint64_t vaddr,
			 const struct frame_state *st)
{
	struct vmstack_uw_row rule;
	enum vmstack_cfi_refusal why = reduce(st, &rule);

	if (why != VMSTACK_CFI_REDUCED) {
		t->fallback_rows++;
		t->refused[why]++;
	}
	add_row(t, vaddr, &rule);
}

void cfi_table_add_gap(struct vmstack_cfi_table *t, uint64_t vaddr)
{
	static const struct vmstack_uw_row fp = { .cfa = VMSTACK_UW_FP };

	add_row(t, vaddr, &fp);
}

const char *vmstack_cfi_refusal_name(enum vmstack_cfi_refusal why)
{
	static const char *const names[VMSTACK_CFI_REFUSALS] = {
		[VMSTACK_CFI_REDUCED] = "reduced",
		[VMSTACK_CFI_CFA_EXPRESSION] = "cfa-expression",
		[VMSTACK_CFI_CFA_REGISTER] = "cfa-register",
		[VMSTACK_CFI_CFA_OFFSET] = "cfa-offset",
		[VMSTACK_CFI_RA_ELSEWHERE] = "ra-elsewhere",
	};

	return why < VMSTACK_CFI_REFUSALS ? names[why] : "?";
}
