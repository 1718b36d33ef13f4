// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI 4 VM program interpreter (module/vm_prog.c) on fake memory:
 * each instruction, each bound of a run and of a sample (steps, frames,
 * reads, faults, time), MARK/UNDO, and the registers carried from one
 * run to the next. The verifier's refusals are in test_vm_prog_check.c.
 */
#include <string.h>

#include "fake_mem.h"
#include "unit.h"
#include "vm_prog.h"

#define HEAP	0x10000000UL
#define VM_LO	0x400000UL
#define VM_HI	0x401000UL

static u64 ips[64];
static struct vmstack_vm_desc4 desc;
static struct vmstack_walk walk;
static u64 r[VMSTACK_VM4_REGS];

static struct vmstack_vm_insn insn(u8 op, unsigned int dst, unsigned int src, s16 off, s32 imm)
{
	struct vmstack_vm_insn in = { op, VMSTACK_VM4_REGS_OF(dst, src), off, imm };

	return in;
}

/* A descriptor of program @p (@n instructions), checked; a fresh walk. */
static void prog(const struct vmstack_vm_insn *p, unsigned int n)
{
	memset(&desc, 0, sizeof(desc));
	desc.size = sizeof(desc);
	desc.ranges[0].start = VM_LO;
	desc.ranges[0].end = VM_HI;
	desc.max_frames = 8;
	desc.prog_len = n;
	desc.nr_consts = 2;
	desc.consts[0] = 0x1122334455667788ULL;
	desc.consts[1] = HEAP;
	memcpy(desc.prog, p, n * sizeof(*p));
	CHECK(vmstack_vm_desc4_check(&desc) == NULL);
	memset(&walk, 0, sizeof(walk));
	walk.vms = &desc;
	walk.ips = ips;
	walk.max = 64;
	walk.reads_left = VMSTACK_MAX_READS;
	walk.deadline = ~0ULL;
	memset(r, 0, sizeof(r));
	fake_mem_reset();
	fake_mem_map(HEAP, 0x1000);
}

static int run(void)
{
	return vmstack_vm_prog_run(&walk, &desc, r);
}

#define EXIT_SHOWN	insn(VMSTACK_VM4_EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN)
#define CUT(why)	(VMSTACK_VM4_X_CUT + VMSTACK_VMB_##why)

UNIT_TEST(vm_prog_alu)
{
	static const struct {
		u8 op;
		u64 a, v, want;
	} t[] = {
		{ VMSTACK_VM4_MOV, 5, 7, 7 },
		{ VMSTACK_VM4_ADD, 5, 7, 12 },
		{ VMSTACK_VM4_SUB, 5, 7, (u64)-2 },
		{ VMSTACK_VM4_MUL, 5, 7, 35 },
		{ VMSTACK_VM4_AND, 6, 3, 2 },
		{ VMSTACK_VM4_OR, 6, 3, 7 },
		{ VMSTACK_VM4_XOR, 6, 3, 5 },
		{ VMSTACK_VM4_LSH, 3, 65, 6 },		/* by v & 63 */
		{ VMSTACK_VM4_RSH, 1ULL << 63, 63, 1 },	/* logical */
	};
	struct vmstack_vm_insn p[5];
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* Register form in r2, _K form in r3, from a in r1 and v in r4. */
		p[0] = insn(VMSTACK_VM4_MOV, 2, 1, 0, 0);
		p[1] = insn(t[i].op, 2, 4, 0, 0);
		p[2] = insn(VMSTACK_VM4_MOV, 3, 1, 0, 0);
		p[3] = insn(t[i].op + 1, 3, 0, 0, (s32)t[i].v);
		p[4] = EXIT_SHOWN;
		prog(p, 5);
		r[1] = t[i].a;
		r[4] = t[i].v;
		CHECK(run() == VMSTACK_VM4_X_SHOWN);
		CHECK(r[2] == t[i].want);
		CHECK(r[3] == t[i].want);
	}
	/* _K immediates are sign-extended; ARSH_K shifts the sign in. */
	p[0] = insn(VMSTACK_VM4_MOV_K, 1, 0, 0, -1);
	p[1] = insn(VMSTACK_VM4_MOV_K, 2, 0, 0, -64);
	p[2] = insn(VMSTACK_VM4_ARSH_K, 2, 0, 0, 3);
	p[3] = insn(VMSTACK_VM4_ADD_K, 3, 0, 0, -1);
	p[4] = EXIT_SHOWN;
	prog(p, 5);
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[1] == ~0ULL);
	CHECK(r[2] == (u64)-8);
	CHECK(r[3] == ~0ULL);
}

UNIT_TEST(vm_prog_ldc_ldreg)
{
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_LDC, 1, 0, 0, 0),
		insn(VMSTACK_VM4_LDC, 2, 0, 0, 1),
		insn(VMSTACK_VM4_LDREG, 3, 0, 0, VMSTACK_VM_REG_RBX),
		insn(VMSTACK_VM4_LDREG, 4, 0, 0, VMSTACK_VM_REG_NONE),
		EXIT_SHOWN,
	};

	prog(p, 5);
	walk.regs[VMSTACK_VM_REG_RBX] = 0xb0b;
	r[4] = 9;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[1] == 0x1122334455667788ULL);
	CHECK(r[2] == HEAP);
	CHECK(r[3] == 0xb0b);
	CHECK(r[4] == 0);
}

UNIT_TEST(vm_prog_loads)
{
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_LD8, 2, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD16, 3, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD32, 4, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD64, 5, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD8_S, 6, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD16_S, 7, 1, 0, 0x10),
		insn(VMSTACK_VM4_LD32_S, 8, 1, 0, 0x10),
		/* A negative offset from a register. */
		insn(VMSTACK_VM4_LD64, 9, 10, 0, -8),
		EXIT_SHOWN,
	};

	prog(p, 9);
	fake_put64(HEAP + 0x10, 0xfedcba9876543210ULL);
	fake_put64(HEAP + 0x100, 77);
	r[1] = HEAP;
	r[10] = HEAP + 0x108;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[2] == 0x10);
	CHECK(r[3] == 0x3210);
	CHECK(r[4] == 0x76543210);
	CHECK(r[5] == 0xfedcba9876543210ULL);
	CHECK(r[6] == 0x10);
	CHECK(r[7] == 0x3210);
	CHECK(r[8] == 0x76543210);
	CHECK(r[9] == 77);
	CHECK(fake_mem_reads() == 8);

	/* Sign extension of negative values. */
	fake_put64(HEAP + 0x10, 0x80008080ULL);
	memset(r, 0, sizeof(r));
	r[1] = HEAP;
	r[10] = HEAP + 0x108;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[6] == (u64)(s64)(s8)0x80);
	CHECK(r[7] == (u64)(s64)(s16)0x8080);
	CHECK(r[8] == (u64)(s64)(s32)0x80008080);

	/* A read outside mapped memory ends the run: CUT + READ. */
	memset(r, 0, sizeof(r));
	r[1] = HEAP + 0x2000;
	CHECK(run() == CUT(READ));
	CHECK(walk.faults == 1);
	CHECK(r[2] == 0);
}

UNIT_TEST(vm_prog_load_fail_edge)
{
	/* A load with a fail edge: a read that fails jumps, dst unchanged. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_LD64, 2, 1, 2, 0),
		insn(VMSTACK_VM4_MOV_K, 3, 0, 0, 1),
		EXIT_SHOWN,
		insn(VMSTACK_VM4_EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY),
	};
	unsigned int i;

	prog(p, 4);
	fake_put64(HEAP, 99);
	r[1] = HEAP;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[2] == 99 && r[3] == 1);
	memset(r, 0, sizeof(r));
	r[1] = HEAP + 0x2000;
	r[2] = 5;
	CHECK(run() == VMSTACK_VM4_X_EMPTY);
	CHECK(r[2] == 5 && r[3] == 0);
	CHECK(walk.faults == 1);
	/* Past the fault cap the read is not tried, and the edge is taken. */
	for (i = 1; i < VMSTACK_MAX_VM_FAULTS; i++)
		CHECK(run() == VMSTACK_VM4_X_EMPTY);
	CHECK(run() == VMSTACK_VM4_X_EMPTY);
	CHECK(fake_mem_faults() == VMSTACK_MAX_VM_FAULTS);
	/* And once the budget is spent: counted as ever (SF_BUDGET). */
	prog(p, 4);
	walk.reads_left = 0;
	r[1] = HEAP;
	CHECK(run() == VMSTACK_VM4_X_EMPTY);
	CHECK(walk.flags & VMSTACK_SF_BUDGET);
	CHECK(fake_mem_reads() == 0);
}

UNIT_TEST(vm_prog_jumps)
{
	static const struct {
		u8 op;
		u64 a, v;
		bool taken;
	} t[] = {
		{ VMSTACK_VM4_JEQ, 3, 3, true },	{ VMSTACK_VM4_JEQ, 3, 4, false },
		{ VMSTACK_VM4_JNE, 3, 4, true },	{ VMSTACK_VM4_JNE, 3, 3, false },
		{ VMSTACK_VM4_JGT, 4, 3, true },	{ VMSTACK_VM4_JGT, 3, 3, false },
		{ VMSTACK_VM4_JGE, 3, 3, true },	{ VMSTACK_VM4_JGE, 2, 3, false },
		{ VMSTACK_VM4_JLT, 2, 3, true },	{ VMSTACK_VM4_JLT, 3, 3, false },
		{ VMSTACK_VM4_JLE, 3, 3, true },	{ VMSTACK_VM4_JLE, 4, 3, false },
		{ VMSTACK_VM4_JSET, 6, 2, true },	{ VMSTACK_VM4_JSET, 6, 1, false },
		/* Unsigned: -1 is the largest. */
		{ VMSTACK_VM4_JGT, (u64)-1, 3, true },
	};
	struct vmstack_vm_insn p[4];
	unsigned int i, k;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		for (k = 0; k < 2; k++) {
			/* r1 = 1 if the jump fell through, 0 if taken. */
			p[0] = k ? insn(t[i].op + 1, 2, 0, 2, (s32)t[i].v) :
				   insn(t[i].op, 2, 3, 2, 0);
			p[1] = insn(VMSTACK_VM4_MOV_K, 1, 0, 0, 1);
			p[2] = EXIT_SHOWN;
			p[3] = insn(VMSTACK_VM4_EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY);
			prog(p, 4);
			r[2] = t[i].a;
			r[3] = t[i].v;
			CHECK(run() == (t[i].taken ? VMSTACK_VM4_X_EMPTY : VMSTACK_VM4_X_SHOWN));
			CHECK(r[1] == !t[i].taken);
		}
	}
	/* JSLT_K is signed; JA and backward jumps: count r1 down to 0. */
	p[0] = insn(VMSTACK_VM4_SUB_K, 1, 0, 0, 1);
	p[1] = insn(VMSTACK_VM4_JSLT_K, 1, 0, 1, 1);
	p[2] = insn(VMSTACK_VM4_JA, 0, 0, -3, 0);
	p[3] = EXIT_SHOWN;
	prog(p, 4);
	r[1] = 10;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[1] == 0);
	CHECK(walk.vm_steps == 30);
}

UNIT_TEST(vm_prog_emit)
{
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_EMIT_SCRIPT, 1, 2, 0, 0),
		insn(VMSTACK_VM4_EMIT_BUILTIN, 3, 0, 0, 0),
		insn(VMSTACK_VM4_EMIT_UNVERIFIED, 0, 0, 0, VMSTACK_VMU_KIND),
		insn(VMSTACK_VM4_EMIT_JIT, 4, 0, 0, 0),
		EXIT_SHOWN,
	};
	struct vmstack_vm_desc4 two[2];

	prog(p, 5);
	/* The second descriptor of the session: its words say VM 1. */
	two[1] = desc;
	walk.vms = two;
	r[1] = 0xabc;
	r[2] = 0x1234;
	r[3] = 42;
	r[4] = 0x777;
	CHECK(vmstack_vm_prog_run(&walk, &two[1], r) == VMSTACK_VM4_X_SHOWN);
	CHECK(walk.n == 5);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0xabc));
	CHECK(ips[1] == 0x1234);
	CHECK(ips[2] == vmstack_vmw(VMSTACK_VMW_BUILTIN, 1, 42));
	CHECK(ips[3] == vmstack_vmw(VMSTACK_VMW_UNVERIFIED, 1, VMSTACK_VMU_KIND));
	CHECK(ips[4] == vmstack_vmw(VMSTACK_VMW_JIT, 1, 0x777));
	CHECK(walk.flags == VMSTACK_SF_VM_UNVERIFIED);
}

UNIT_TEST(vm_prog_max_frames)
{
	/* Emit forever: the run stops at max_frames frames, CUT + DEPTH. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_EMIT_SCRIPT, 1, 2, 0, 0),
		insn(VMSTACK_VM4_JA, 0, 0, -2, 0),
	};

	prog(p, 2);
	CHECK(run() == CUT(DEPTH));
	CHECK(walk.n == 2 * desc.max_frames);
	/* Per run: the next run may emit as many. */
	CHECK(run() == CUT(DEPTH));
	CHECK(walk.n == 4 * desc.max_frames);
}

UNIT_TEST(vm_prog_ips_full)
{
	/* ips[] fills up: the run ends SHOWN with no AR, the stack truncated. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_MOV_K, 1, 0, 0, 0x100),
		insn(VMSTACK_VM4_EMIT_SCRIPT, 3, 2, 0, 0),
		insn(VMSTACK_VM4_EMIT_SCRIPT, 3, 2, 0, 0),
		insn(VMSTACK_VM4_EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY),
	};

	prog(p, 4);
	walk.max = 3;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(r[1] == 0);
	CHECK(walk.n == 3);
	CHECK(walk.flags & VMSTACK_SF_USER_TRUNC);
}

UNIT_TEST(vm_prog_mark_undo)
{
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_EMIT_BUILTIN, 1, 0, 0, 0),
		insn(VMSTACK_VM4_MARK, 0, 0, 0, 0),
		insn(VMSTACK_VM4_EMIT_UNVERIFIED, 0, 0, 0, VMSTACK_VMU_EDGE),
		insn(VMSTACK_VM4_EMIT_BUILTIN, 1, 0, 0, 0),
		insn(VMSTACK_VM4_UNDO, 0, 0, 0, 0),
		/* max_frames - 1 more frames fit: the undone ones are not counted. */
		insn(VMSTACK_VM4_ADD_K, 2, 0, 0, 1),
		insn(VMSTACK_VM4_EMIT_BUILTIN, 2, 0, 0, 0),
		insn(VMSTACK_VM4_JLT_K, 2, 0, -3, 7),
		EXIT_SHOWN,
	};

	prog(p, 9);
	r[1] = 5;
	CHECK(run() == VMSTACK_VM4_X_SHOWN);
	CHECK(walk.n == 8);
	CHECK(ips[0] == vmstack_vmw(VMSTACK_VMW_BUILTIN, 0, 5));
	CHECK(ips[1] == vmstack_vmw(VMSTACK_VMW_BUILTIN, 0, 1));
	CHECK(ips[7] == vmstack_vmw(VMSTACK_VMW_BUILTIN, 0, 7));
	/* The unverified flag the undone words set is dropped too. */
	CHECK(!(walk.flags & VMSTACK_SF_VM_UNVERIFIED));

	/* One set before the MARK stays; UNDO without MARK drops the run's words. */
	{
		struct vmstack_vm_insn q[] = {
			insn(VMSTACK_VM4_EMIT_BUILTIN, 1, 0, 0, 0),
			insn(VMSTACK_VM4_UNDO, 0, 0, 0, 0),
			EXIT_SHOWN,
		};

		prog(q, 3);
		walk.flags = VMSTACK_SF_VM_UNVERIFIED;
		ips[0] = 1;
		walk.n = 1;
		CHECK(run() == VMSTACK_VM4_X_SHOWN);
		CHECK(walk.n == 1);
		CHECK(walk.flags == VMSTACK_SF_VM_UNVERIFIED);
	}
}

UNIT_TEST(vm_prog_steps)
{
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_ADD_K, 1, 0, 0, 1),
		insn(VMSTACK_VM4_JA, 0, 0, -2, 0),
	};
	unsigned int i;

	prog(p, 2);
	/* A run stops at VMSTACK_VM4_RUN_STEPS... */
	CHECK(run() == CUT(STEPS));
	CHECK(r[1] == VMSTACK_VM4_RUN_STEPS / 2);
	CHECK(walk.vm_steps == VMSTACK_VM4_RUN_STEPS);
	/* ...and the sample's runs at VMSTACK_VM4_SAMPLE_STEPS in all. */
	for (i = 1; i < VMSTACK_VM4_SAMPLE_STEPS / VMSTACK_VM4_RUN_STEPS; i++)
		CHECK(run() == CUT(STEPS));
	CHECK(walk.vm_steps == VMSTACK_VM4_SAMPLE_STEPS);
	r[1] = 0;
	CHECK(run() == CUT(STEPS));
	CHECK(r[1] == 0);
	CHECK(walk.vm_steps == VMSTACK_VM4_SAMPLE_STEPS);
	/* Nothing was read, nothing flagged: the steps bound the work alone. */
	CHECK(fake_mem_reads() == 0);
	CHECK(walk.flags == 0);
}

UNIT_TEST(vm_prog_deadline)
{
	/* A loop that reads nothing still meets the deadline, every 256 steps. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_ADD_K, 1, 0, 0, 1),
		insn(VMSTACK_VM4_JA, 0, 0, -2, 0),
	};

	prog(p, 2);
	walk.deadline = 0;
	CHECK(run() == CUT(BUDGET));
	CHECK(walk.vm_steps == 256);
	CHECK(walk.flags & VMSTACK_SF_BUDGET);
	CHECK(walk.reads_left == 0);
}

UNIT_TEST(vm_prog_read_budget)
{
	/* Reads in a loop: the sample's read budget ends it, CUT + BUDGET. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_LDC, 1, 0, 0, 1),
		insn(VMSTACK_VM4_LD64, 2, 1, 0, 0),
		insn(VMSTACK_VM4_JA, 0, 0, -2, 0),
	};

	prog(p, 3);
	walk.reads_left = 10;
	CHECK(run() == CUT(BUDGET));
	CHECK(fake_mem_reads() == 10);
	CHECK(walk.flags & VMSTACK_SF_BUDGET);
}

UNIT_TEST(vm_prog_faults)
{
	/*
	 * Reads that fault, one per run: past VMSTACK_MAX_VM_FAULTS in the
	 * sample no VM read is tried, and runs are cut for FAULTS.
	 */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_LD64, 2, 1, 0, 0),
		EXIT_SHOWN,
	};
	unsigned int i;

	prog(p, 2);
	for (i = 0; i < VMSTACK_MAX_VM_FAULTS - 1; i++)
		CHECK(run() == CUT(READ));
	CHECK(run() == CUT(FAULTS));
	CHECK(run() == CUT(FAULTS));
	CHECK(fake_mem_faults() == VMSTACK_MAX_VM_FAULTS);
	CHECK(walk.faults == VMSTACK_MAX_VM_FAULTS);
}

UNIT_TEST(vm_prog_carry)
{
	/* r8..r11 of a run are the next run's: here a count of runs in r8. */
	struct vmstack_vm_insn p[] = {
		insn(VMSTACK_VM4_ADD_K, 8, 0, 0, 1),
		insn(VMSTACK_VM4_MOV_K, 11, 0, 0, -1),
		insn(VMSTACK_VM4_MOV_K, 12, 0, 0, 5),
		insn(VMSTACK_VM4_EXIT, 0, 0, 0, CUT(CHECK)),
	};
	unsigned int i, k;

	prog(p, 4);
	for (k = 1; k <= 3; k++) {
		memset(r, 0, sizeof(r));
		for (i = 0; i < VMSTACK_VM4_CARRIED; i++)
			r[VMSTACK_VM4_CARRY_FIRST + i] = walk.vm_carry[0][i];
		CHECK(run() == CUT(CHECK));
		CHECK(walk.vm_carry[0][0] == k);
	}
	CHECK(walk.vm_carry[0][3] == ~0ULL);
	CHECK(walk.vm_carry[0][1] == 0 && walk.vm_carry[0][2] == 0);
}
