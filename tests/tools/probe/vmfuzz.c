// SPDX-License-Identifier: GPL-2.0
/*
 * vmstack-probe vmfuzz: random and mutated ABI 4 descriptors; the module
 * must take exactly those its check (linked here) takes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "probe.h"
#include "vm_prog_check.h"

static int64_t rnd_off(void)
{
	static const int64_t picks[] = { 0, 8, -8, 0x10, 0x20, 0x38, 0x40, 0x48,
					 0x50, -4, 1, -1, 4096, -4096, 1 << 30 };

	return rand() % 3 ? picks[rand() % 15] : (int64_t)(rand() % 512) - 256;
}

/* A LuaJIT trace's fields (user/vm/luajit/luajit.c) or not, each on its own. */
static int32_t jit_off(int32_t real)
{
	return rand() % 2 ? real : (int32_t)rnd_off();
}

static void random_jit(struct vmstack_vm_desc4 *d)
{
	d->flags |= VMSTACK_VM4_F_JIT;
	if (rand() % 2)
		d->flags |= VMSTACK_VM4_F_JIT_NEAR;
	if (rand() % 4 == 0)
		d->flags |= VMSTACK_VM4_F_JIT_REF32;
	d->jit_reg = (uint8_t)(rand() % 2 ? VMSTACK_VM_REG_R14 : rand() % (__VMSTACK_VM_REG_MAX + 2));
	d->jit_anchor_adj = jit_off(-0xf80);
	d->jit_id_off = jit_off(0xb8);
	d->jit_table_off = jit_off(0x458);
	d->jit_count_off = jit_off(0x464);
	d->jit_code_off = jit_off(0x58);
	d->jit_size_off = jit_off(0x54);
	d->jit_mask = rand() % 2 ? (1ULL << 47) - 1 : ~0ULL;
	/* Near objects: links, roots and chains right, garbage, or looping. */
	d->jit_link_off = jit_off(0x6a);
	d->jit_root_off = jit_off(0x6c);
	d->jit_side_off = jit_off(0x70);
	d->jit_near_max = rand() % 4 ? 16 : (uint32_t)rand() % 40;
	/* 4.1's code areas: the list right, garbage, or looping. */
	if (rand() % 2) {
		d->flags |= VMSTACK_VM4_F_JIT_AREAS;
		d->jit_area_off = jit_off(0xec0);
		d->jit_areas_max = rand() % 4 ? VMSTACK_VM_JIT_AREAS_MAX : (uint32_t)rand() % 80;
	}
	/* An anchor through a pointer variable: in the stack, or wild. */
	d->jit_anchor_ptr = rand() % 2 ? 0x7ffffffde000ULL + (uint64_t)(rand() % 4096) * 8 :
				       (uint64_t)rand() << (rand() % 40);
}

/* An immediate that means something to @op most of the time. */
static int32_t random_imm(uint8_t op, unsigned int nr_consts)
{
	static const int32_t exits[] = { VMSTACK_VM4_X_SHOWN, VMSTACK_VM4_X_EMPTY,
		VMSTACK_VM4_X_CUT + VMSTACK_VMB_STATE, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK,
		VMSTACK_VM4_X_CUT + VMSTACK_VMB_FRAME, VMSTACK_VM4_X_CUT };

	if (rand() % 8 == 0)
		return (int32_t)rand() - RAND_MAX / 2;
	switch (op) {
	case VMSTACK_VM4_LDC:
		return nr_consts ? rand() % (int)nr_consts : 0;
	case VMSTACK_VM4_LDREG:
		return rand() % __VMSTACK_VM_REG_MAX;
	case VMSTACK_VM4_EXIT:
		return exits[rand() % 6];
	case VMSTACK_VM4_EMIT_UNVERIFIED:
		return 1 + rand() % VMSTACK_VMU_EDGE;
	default:
		return (int32_t)rnd_off();
	}
}

/* Instruction @i of @len: mostly a known opcode and a jump that lands inside. */
static struct vmstack_vm_insn random_insn(unsigned int i, unsigned int len,
					  unsigned int nr_consts)
{
	struct vmstack_vm_insn in;

	in.op = (uint8_t)(rand() % 16 ? rand() % __VMSTACK_VM4_OP_MAX : rand() % 256);
	/* Registers 1, 2 (sp, bp), 6 (TLS) and 8 (carried) are the useful ones. */
	in.regs = (uint8_t)(rand() % 4 ? VMSTACK_VM4_REGS_OF(rand() % 12, rand() % 12) : rand());
	in.off = (int16_t)(rand() % 8 ? (int)(rand() % len) - (int)(i + 1) : rand());
	in.imm = random_imm(in.op, nr_consts);
	return in;
}

/*
 * Programs of the kind runtimes send, to mutate: a frame-pointer chain
 * shown as script frames (every frame a loop of reads), a thread state
 * found by thread id on a list, and a walk from a register that falls
 * back to another start with MARK/UNDO.
 */
#define I(op, dst, src, off, imm) \
	((struct vmstack_vm_insn){ VMSTACK_VM4_##op, VMSTACK_VM4_REGS_OF(dst, src), off, imm })
static const struct vmstack_vm_insn real_progs[3][12] = {
	{
		I(JEQ_K, 0, 0, 1, VMSTACK_VM4_AT_NATIVE), I(EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY),
		I(MOV, 7, 2, 0, 0), I(LD64, 3, 7, 0, 8), I(EMIT_SCRIPT, 3, 7, 0, 0),
		I(LD64, 7, 7, 0, 0), I(JNE_K, 7, 0, -4, 0),
		I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN),
	},
	{
		I(JNE_K, 9, 0, 5, 0), I(LDC, 9, 0, 0, 0), I(LD64, 9, 9, 0, 0x10),
		I(LD32, 3, 9, 0, 0xa0), I(JEQ, 3, 5, 1, 0), I(LD64, 9, 9, 0, 8),
		I(JNE_K, 9, 0, -4, 0), I(LD64, 7, 9, 0, 0x38), I(EMIT_BUILTIN, 7, 0, 0, 0),
		I(LD64, 8, 6, 0, -8), I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN),
	},
	{
		I(LDREG, 7, 0, 0, VMSTACK_VM_REG_RDX), I(MARK, 0, 0, 0, 0), I(LD64, 3, 7, 0, -8),
		I(JSET_K, 3, 0, 3, 7), I(EMIT_SCRIPT, 3, 7, 0, 0), I(SUB_K, 7, 0, 0, 16),
		I(JA, 0, 0, -5, 0), I(UNDO, 0, 0, 0, 0), I(LD64, 7, 1, 0, 0x20),
		I(EMIT_UNVERIFIED, 0, 0, 0, VMSTACK_VMU_EDGE),
		I(EXIT, 0, 0, 0, VMSTACK_VM4_X_CUT + VMSTACK_VMB_CHECK),
	},
};
static const unsigned int real_lens[3] = { 8, 11, 11 };

static void random_prog(struct vmstack_vm_desc4 *d)
{
	unsigned int i, n, k = (unsigned int)rand() % 3;

	if (rand() % 2) {
		/* A real one, one to three instructions changed. */
		d->prog_len = (uint16_t)real_lens[k];
		memcpy(d->prog, real_progs[k], sizeof(real_progs[k]));
		for (n = 1 + rand() % 3; n; n--) {
			i = (unsigned int)rand() % d->prog_len;
			switch (rand() % 4) {
			case 0:
				d->prog[i].op = (uint8_t)(d->prog[i].op + rand() % 3 - 1);
				break;
			case 1:
				d->prog[i].regs = (uint8_t)rand();
				break;
			case 2:
				d->prog[i].off = (int16_t)(d->prog[i].off + rand() % 3 - 1);
				break;
			default:
				d->prog[i].imm = random_imm(d->prog[i].op, d->nr_consts);
			}
		}
		return;
	}
	d->prog_len = (uint16_t)(rand() % 8 ? 1 + rand() % 32 : 1 + rand() % VMSTACK_VM4_PROG_MAX);
	for (i = 0; i < d->prog_len; i++)
		d->prog[i] = random_insn(i, d->prog_len, d->nr_consts);
	/* Most end in an EXIT or a loop back. */
	if (rand() % 4)
		d->prog[d->prog_len - 1] = rand() % 2 ? I(EXIT, 0, 0, 0, VMSTACK_VM4_X_SHOWN) :
			I(JA, 0, 0, -(int16_t)d->prog_len, 0);
}

/*
 * Three in four descriptors are repaired, instruction by instruction,
 * until the check (the module's, linked here) takes them, so the module
 * runs their random reads and loops; the fourth is sent as it is.
 */
static void repair(struct vmstack_vm_desc4 *d)
{
	unsigned int tries;
	int at;

	for (tries = 0; tries < 200 && vmstack_vm_desc4_check_insn(d, &at); tries++) {
		if (at >= d->prog_len) {
			memset(&d->prog[at], 0, sizeof(d->prog[at]));
		} else if (at >= 0) {
			d->prog[at] = random_insn((unsigned int)at, d->prog_len, d->nr_consts);
			if (at == d->prog_len - 1 && rand() % 2)
				d->prog[at] = I(EXIT, 0, 0, 0, VMSTACK_VM4_X_EMPTY);
		} else {
			d->flags &= VMSTACK_VM4_F_ALL;
			d->jit_reg %= __VMSTACK_VM_REG_MAX;
			d->max_frames = (uint16_t)(1 + d->max_frames % VMSTACK_VM_MAX_FRAMES);
			memset(d->pad0, 0, sizeof(d->pad0));
			if (d->flags & VMSTACK_VM4_F_JIT)
				d->flags &= ~VMSTACK_VM4_F_NATIVE_STEP;
			else
				d->flags &= ~(VMSTACK_VM4_F_JIT_NEAR | VMSTACK_VM4_F_JIT_REF32 |
					      VMSTACK_VM4_F_JIT_AREAS);
			if (!(d->flags & VMSTACK_VM4_F_JIT_AREAS))
				d->jit_area_off = d->jit_areas_max = 0;
			else
				d->jit_areas_max = 1 + d->jit_areas_max % VMSTACK_VM_JIT_AREAS_MAX;
			if (d->jit_reg == VMSTACK_VM_REG_NONE)
				d->jit_anchor_ptr = 0x1000 + (d->jit_anchor_ptr & 0x7ffffffeff8ULL);
			d->jit_near_max = 1 + d->jit_near_max % VMSTACK_VM_JIT_NEAR_MAX;
			d->nr_consts %= VMSTACK_VM4_CONSTS + 1;
			memset(&d->consts[d->nr_consts], 0,
			       (VMSTACK_VM4_CONSTS - d->nr_consts) * sizeof(d->consts[0]));
			d->ranges[0].start = 0x1000;
			d->ranges[0].end = USER_END;
			memset(&d->ranges[1], 0, 3 * sizeof(d->ranges[1]));
		}
	}
}
#undef I

static void random_desc(struct vmstack_vm_desc4 *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->size = sizeof(*d);
	/* All of user space is "VM code": every frame runs the program. */
	d->ranges[0].start = rand() % 10 ? 0x1000 : (uint64_t)rand() << 12;
	d->ranges[0].end = rand() % 10 ? USER_END : (uint64_t)rand() << 16;
	for (i = 1; i < VMSTACK_VM4_RANGES && rand() % 8 == 0; i++) {
		d->ranges[i].start = (uint64_t)rand() << 12;
		d->ranges[i].end = d->ranges[i].start + (uint64_t)(rand() % 3) * 0x1000;
	}
	d->flags = rand() % 10 ? (uint32_t)rand() & VMSTACK_VM4_F_NATIVE_STEP : (uint32_t)rand();
	d->max_frames = (uint16_t)(rand() % 4 ? 1 + rand() % VMSTACK_VM_MAX_FRAMES : rand());
	d->nr_consts = rand() % 8 ? (uint32_t)rand() % (VMSTACK_VM4_CONSTS + 1) : (uint32_t)rand();
	for (i = 0; i < VMSTACK_VM4_CONSTS; i++)
		if (i < d->nr_consts || rand() % 50 == 0)
			d->consts[i] = rand() % 2 ? 0x7ffffffde000ULL + (uint64_t)(rand() % 4096) * 8 :
						    (uint64_t)rand();
	d->caller_bp_off = (int32_t)rnd_off();
	d->caller_ra_off = (int32_t)rnd_off();
	d->caller_sp_off = (int32_t)rnd_off();
	if (rand() % 4 == 0)
		random_jit(d);
	if (rand() % 20 == 0)
		d->pad0[rand() % 3] = 1;
	random_prog(d);
	/* Junk past the program, sometimes. */
	if (rand() % 20 == 0 && d->prog_len < VMSTACK_VM4_PROG_MAX)
		d->prog[d->prog_len].imm = 1;
	if (rand() % 4)
		repair(d);
}

/* A descriptor with room behind it, as a newer tool would send. */
struct long_desc {
	struct vmstack_vm_desc4 desc;
	unsigned char tail[64];
};

/*
 * Mostly the struct as it is; sometimes cut short (refused below the
 * 4.0 size), longer with a tail of zeros (a newer tool not using its
 * additions: taken) or not (refused), or with a size field that is not
 * its length (refused).
 */
static size_t random_len(struct long_desc *d)
{
	int pick = rand() % 20;
	size_t len = sizeof(d->desc);

	memset(d->tail, 0, sizeof(d->tail));
	if (pick == 0)
		len = (size_t)rand() % sizeof(d->desc);
	/* ABI 4.0's length, which a 4.1 module takes. */
	if (pick == 4)
		len = VMSTACK_VM4_DESC_SIZE_4_0;
	if (pick == 1)
		len = sizeof(d->desc) + 8 * (1 + rand() % 8);
	if (pick == 2) {
		d->tail[rand() % sizeof(d->tail)] = (unsigned char)(1 + rand() % 255);
		len = sizeof(*d);
	}
	d->desc.size = (uint32_t)len;
	if (pick == 3)
		d->desc.size = (uint32_t)rand();
	return len;
}

/* Must the module take @d, sent in @len bytes? As its check says. */
static int should_take(const struct long_desc *d, size_t len)
{
	static struct vmstack_vm_desc4 as_sent;
	unsigned int i;

	if (d->desc.size != len ||
	    (len < sizeof(d->desc) && len != VMSTACK_VM4_DESC_SIZE_4_0))
		return 0;
	for (i = 0; len > sizeof(d->desc) && i < len - sizeof(d->desc); i++)
		if (d->tail[i])
			return 0;
	/* ABI 4.0's length: the fields past it are 0 in the module's copy. */
	memset(&as_sent, 0, sizeof(as_sent));
	memcpy(&as_sent, &d->desc, len < sizeof(as_sent) ? len : sizeof(as_sent));
	/* The check here allows 5-level paging; the guest has 4 levels. */
	for (i = 0; i < VMSTACK_VM4_RANGES; i++)
		if (as_sent.ranges[i].end > USER_END)
			return 0;
	return vmstack_vm_desc4_check(&as_sent) == NULL;
}

int vmfuzz(int pid, double secs, unsigned seed)
{
	struct vmstack_start_req req = { .pid = pid, .freq = 2000,
		.event = VMSTACK_EVENT_CPU_CLOCK, .stacks = VMSTACK_STACK_ALL,
		.max_depth = VMSTACK_MAX_DEPTH, .ring_pages = 64, .paused = 1 };
	unsigned long sessions = 0, accepted = 0, refused = 0, samples = 0, disagree = 0;
	struct vmstack_cpu_counts c;
	uint64_t vm_errors = 0;
	struct long_desc d;
	struct vmstack_started s;
	struct vmstack_ring_view v[64];
	struct vmstack_nl *nl;
	unsigned i, k;
	char msg[256];
	double t0, t1;
	size_t size, len;
	void *area;
	int err;

	srand(seed);
	if (vmstack_nl_connect(&nl, msg, sizeof(msg)))
		return 2;
	for (t0 = now(); now() - t0 < secs; sessions++) {
		if (vmstack_nl_session_start(nl, &req, &s, msg, sizeof(msg)) ||
		    s.nr_cpus > 64) {
			fprintf(stderr, "vmfuzz: %s\n", msg);
			return 2;
		}
		/* Up to VMSTACK_VM_MAX taken: more are refused as too many. */
		for (k = 0; k < 6; k++) {
			random_desc(&d.desc);
			len = random_len(&d);
			err = vmstack_nl_vm_add(nl, s.fd, 0, &d, len, msg, sizeof(msg));
			if (err)
				refused++;
			else
				accepted++;
			/* The module's verdict is the check's, which this tool links. */
			if (err != -ENOSPC && (err == 0) != should_take(&d, len) && disagree++ < 5)
				fprintf(stderr, "vmfuzz: the module %s a descriptor its check %s (%s)\n",
					err ? "refused" : "took", err ? "takes" : "refuses",
					err ? msg : "taken");
		}
		size = (size_t)s.nr_cpus * (s.ring_pages + 1) * 4096;
		area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
		if (area == MAP_FAILED)
			return 2;
		vmstack_ring_views(area, s.nr_cpus, s.ring_pages, 4096, v);
		vmstack_nl_session_resume(nl, s.fd, msg, sizeof(msg));
		for (t1 = now(); now() - t1 < 0.2;) {
			usleep(10000);
			for (i = 0; i < s.nr_cpus; i++)
				vmstack_ring_drain(&v[i], count_sample, &samples);
		}
		vmstack_nl_session_stop(nl, s.fd, msg, sizeof(msg));
		if (!vmstack_nl_session_stats(nl, s.fd, &c, NULL, msg, sizeof(msg)))
			vm_errors += VMSTACK_CNT(&c, VM_ERRORS);
		munmap(area, size);
		close(s.fd);
	}
	printf("vmfuzz: %lu sessions, %lu descriptors accepted, %lu refused, %lu verdicts unlike the check's, %lu samples, %llu VM stacks cut\n",
	       sessions, accepted, refused, disagree, samples, (unsigned long long)vm_errors);
	vmstack_nl_close(nl);
	return !(accepted && refused && samples && vm_errors && !disagree);
}
