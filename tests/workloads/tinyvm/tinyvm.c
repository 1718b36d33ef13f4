// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny in-house VM that registers its own descriptor through libvmstack:
 * proof that a VM is profiled without kernel code. Script functions call
 * each other inside one interpreter activation (as Lua's do), call native
 * functions, and a native function calls back into the interpreter (a new
 * activation). The call tree is fixed, so the merged stacks are known:
 *
 *   main;run_forever;tv_call;tv:main;tv:work;spin_a                 (1 unit)
 *   main;run_forever;tv_call;tv:main;tv:work;bridge;tv_call;tv:inner;
 *       tv:leaf;spin_b                                              (2 units)
 *
 * Usage: tinyvm SECONDS
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "libvmstack.h"

#define TV_MAGIC	0x7b
#define TV_SCRIPT	1
#define TV_NATIVE	2
#define TV_F_ENTRY	1	/* the first frame of an activation */
#define TV_F_NATIVE	2	/* a native function's frame */

struct tv_func {
	uint8_t kind;
	const char *name;	/* the identity: its address names the frame */
	const uint8_t *code;
	void (*native)(void);
};

struct tv_frame {
	struct tv_frame *prev;
	const struct tv_func *fn;
	const uint8_t *pc;
	uint16_t flags;
};

struct tv_state {
	uint8_t magic;
	struct tv_frame *top;
	struct tv_frame frames[64];
	int depth;
};

enum { OP_CALL, OP_RET };

/* The VM the module reads: its address goes into the descriptor. */
struct tv_state *tv_current;

static void spin(double units)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6 < units);
}

__attribute__((noinline)) void spin_a(void) { spin(1); }
__attribute__((noinline)) void spin_b(void) { spin(2); }
void bridge(void);

static const uint8_t leaf_code[] = { OP_CALL, 5, OP_RET };
static const uint8_t inner_code[] = { OP_CALL, 3, OP_RET };
static const uint8_t work_code[] = { OP_CALL, 4, OP_CALL, 6, OP_RET };
static const uint8_t main_code[] = { OP_CALL, 1, OP_RET };

static const struct tv_func funcs[] = {
	{ TV_SCRIPT, "tv:main", main_code, NULL },
	{ TV_SCRIPT, "tv:work", work_code, NULL },
	{ TV_SCRIPT, "tv:inner", inner_code, NULL },
	{ TV_SCRIPT, "tv:leaf", leaf_code, NULL },
	{ TV_NATIVE, "spin_a", NULL, spin_a },
	{ TV_NATIVE, "spin_b", NULL, spin_b },
	{ TV_NATIVE, "bridge", NULL, bridge },
};

static struct tv_frame *tv_push(struct tv_state *vm, const struct tv_func *fn,
				uint16_t flags)
{
	struct tv_frame *f;

	if (vm->depth == 64)
		abort();
	f = &vm->frames[vm->depth++];
	f->prev = vm->top;
	f->fn = fn;
	f->pc = fn->code;
	f->flags = flags;
	vm->top = f;
	return f;
}

static void tv_pop(struct tv_state *vm)
{
	vm->top = vm->top->prev;
	vm->depth--;
}

/*
 * The interpreter: the descriptor's code range is this section. Script
 * calls stay in this loop; native calls run on top of its C frame.
 */
__attribute__((noinline, section("tinyvm_interp")))
void tv_run(struct tv_state *vm)
{
	struct tv_frame *entry = vm->top;

	for (;;) {
		struct tv_frame *f = vm->top;
		const struct tv_func *callee;

		if (*f->pc == OP_RET) {
			tv_pop(vm);
			if (f == entry)
				return;
			continue;
		}
		callee = &funcs[f->pc[1]];
		f->pc += 2;
		if (callee->kind == TV_SCRIPT) {
			tv_push(vm, callee, 0);
		} else {
			tv_push(vm, callee, TV_F_NATIVE);
			callee->native();
			tv_pop(vm);
		}
	}
}

__attribute__((noinline)) void tv_call(const struct tv_func *fn)
{
	tv_push(tv_current, fn, TV_F_ENTRY);
	tv_run(tv_current);
}

void bridge(void)
{
	tv_call(&funcs[2]);
}

__attribute__((noinline)) static void run_forever(double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		tv_call(&funcs[0]);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

extern const char __start_tinyvm_interp[], __stop_tinyvm_interp[];

int main(int argc, char **argv)
{
	static struct tv_state vm = { .magic = TV_MAGIC };
	char desc[1024];

	tv_current = &vm;
	snprintf(desc, sizeof(desc),
		 "vmstack-vm 2\n"
		 "name tinyvm\n"
		 "namer cstring\n"
		 "code_start %p\n"
		 "code_end %p\n"
		 "state_from global\n"
		 "state_addr %p\n"
		 "check_off 0\n"
		 "check_val %d\n"
		 "top_off %zu\n"
		 "link pointer\n"
		 "link_off %zu\n"
		 "flags_off %zu\n"
		 "bottom_flags %d\n"
		 "native_flags %d\n"
		 "func_off %zu\n"
		 "func_mask 0xffffffffffffffff\n"
		 "kind_off 0\n"
		 "kind_script %d\n"
		 "kind_native %d\n"
		 "ident_off %zu\n"
		 "frame_pc_off %zu\n"
		 "flags native_step,frame_pc,no_builtins\n"
		 "max_frames 64\n"
		 "end\n",
		 (void *)__start_tinyvm_interp, (void *)__stop_tinyvm_interp,
		 (void *)&tv_current, TV_MAGIC,
		 offsetof(struct tv_state, top), offsetof(struct tv_frame, prev),
		 offsetof(struct tv_frame, flags), TV_F_ENTRY, TV_F_NATIVE,
		 offsetof(struct tv_frame, fn), TV_SCRIPT, TV_NATIVE,
		 offsetof(struct tv_func, name), offsetof(struct tv_frame, pc));
	if (vmstack_register_vm(desc))
		perror("tinyvm: vmstack_register_vm");
	run_forever(argc > 1 ? atof(argv[1]) : 5);
	return 0;
}
