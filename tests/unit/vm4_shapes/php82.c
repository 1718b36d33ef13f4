// SPDX-License-Identifier: GPL-2.0
/*
 * The PHP runtime's own program (user/vm/php/php_prog.c) on the PHP 8.2
 * sandwich, first on frames built from the layout (php_layout.c, offsets
 * from Debian's 8.2.36), then on the memory of a live php8.2 stopped in a
 * usort callback (C -> PHP -> C -> PHP), whose frames the runtime's namer
 * then names. The live parts are skipped when php8.2 is absent.
 *
 * The sandwich: main -> zend_execute -> execute_ex (outer: {main}, TOP;
 * g) -> g calls usort (internal): zend_call_function (C) -> execute_ex
 * (inner: f, TOP | DYNAMIC as seen live) -> f calls sleep (internal,
 * sampled).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shape.h"
#include "util.h"
#include "vm/php/php.h"
#include "vm/runtime.h"
#include "php82_live.h"

static u64 fn_of(const struct php_layout *L, u8 type)
{
	u64 fn = shape_alloc(240);

	fake_put8(fn + L->fn_type, type);
	return fn;
}

static u64 ex_of(const struct php_layout *L, u64 func, u64 opline, u32 info, u64 prev)
{
	u64 ex = shape_alloc(80);

	fake_put64(ex + L->ex_opline, opline);
	fake_put64(ex + L->ex_func, func);
	fake_put32(ex + L->ex_call_info, info);
	fake_put64(ex + L->ex_prev, prev);
	return ex;
}

UNIT_TEST(php82_prog_sandwich)
{
	const struct php_layout *L = php_layout_of("8.2.36");
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	struct vmstack_walk w;
	u64 eg, main_, g, f, ex_main, ex_g, ex_map, ex_f;

	CHECK(L != NULL);
	if (!L)
		return;
	shape_mem();
	eg = shape_alloc(L->eg_size);
	main_ = fn_of(L, L->fn_user);
	g = fn_of(L, L->fn_user);
	f = fn_of(L, L->fn_user);
	/* {main} (TOP) -> g -> usort (C) -> f (TOP, DYNAMIC) -> sleep (C) */
	ex_main = ex_of(L, main_, main_ + 0x1000, 0x20000, 0);
	ex_g = ex_of(L, g, g + 0x1040, 0, ex_main);
	ex_map = ex_of(L, fn_of(L, L->fn_internal), 0, 0, ex_g);
	ex_f = ex_of(L, f, f + 0x1080, 0x2020000, ex_map);
	fake_put64(eg + L->eg_current_execute_data,
		   ex_of(L, fn_of(L, L->fn_internal), 0, 0, ex_f));
	php_prog(&p, L, eg);
	shape_desc(&d, &p);
	{
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x1080,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x1040,
			shape_word(VMSTACK_VMW_SCRIPT, main_), main_ + 0x1000,
			SHAPE_MAIN_RA,
		};

		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == VMSTACK_SF_VM);
	}
	{
		/* Sampled in execute_ex running f: r15 is its opline, if r14 is f's frame. */
		u64 want[] = {
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x10c0,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_SCRIPT, g), g + 0x1040,
			shape_word(VMSTACK_VMW_SCRIPT, main_), main_ + 0x1000,
			SHAPE_MAIN_RA,
		};
		unsigned long regs[__VMSTACK_VM_REG_MAX] = { 0 };

		regs[VMSTACK_VM_REG_R14] = ex_f;
		regs[VMSTACK_VM_REG_R15] = f + 0x10c0;
		fake_put64(eg + L->eg_current_execute_data, ex_f);
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
		regs[VMSTACK_VM_REG_R14] = ex_g;
		want[1] = f + 0x1080;
		shape_walk_from(&d, &w, SHAPE_VM_LO + 0x777, 1, regs, want,
				sizeof(want) / sizeof(want[0]));
	}
	{
		/* A frame whose function is of no known type: cut there. */
		const u64 want[] = {
			SHAPE_LEAF,
			shape_word(VMSTACK_VMW_SCRIPT, f), f + 0x1080,
			SHAPE_MID1_RA, SHAPE_MID2_RA,
			shape_word(VMSTACK_VMW_BROKEN, VMSTACK_VMB_CHECK),
			SHAPE_MAIN_RA,
		};

		fake_put64(eg + L->eg_current_execute_data, ex_f);
		fake_put8(g + L->fn_type, 3);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
		CHECK(w.flags == (VMSTACK_SF_VM | VMSTACK_SF_VM_BROKEN));
	}
	{
		/* No frame yet: the native frame stays. */
		const u64 want[] = { SHAPE_LEAF, SHAPE_INNER_RA, SHAPE_MID1_RA, SHAPE_MID2_RA,
				     SHAPE_OUTER_RA, SHAPE_MAIN_RA };

		fake_put64(eg + L->eg_current_execute_data, 0);
		shape_walk_check(&d, &w, want, sizeof(want) / sizeof(want[0]));
	}
}

/* php8.2 running @argv, its output in *@out; once it wrote "ready", in sleep(). */
static int spawn_php(char *const argv[], FILE **out)
{
	char ready[8] = "";
	int fds[2], pid;

	CHECK(!pipe(fds));
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		execv("/usr/bin/php8.2", argv);
		_exit(127);
	}
	close(fds[1]);
	*out = fdopen(fds[0], "r");
	CHECK(*out && fgets(ready, sizeof(ready), *out) && !strcmp(ready, "ready\n"));
	usleep(100000);
	return pid;
}

static void end_php(int pid, FILE *out)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (out)
		fclose(out);
}

/* Debian's opcache.so, which php8.2's own configuration loads. */
static int php_has_opcache(void)
{
	return !access("/usr/lib/php/20220829/opcache.so", R_OK);
}

/* Detection on the php8.2 mapping holding execute_ex, as the recorder would find it. */
static enum vmstack_detect live_detect(int pid, struct vmstack_vm_found *found, char *why)
{
	return shape_live_detect(pid, "php", "php8.2", found, why);
}

/*
 * Lines 1-9 of the usort scripts: a comparator method that says "ready"
 * and sleeps the first time.
 */
#define SORTER \
	"<?php\n" \
	"class Sorter {\n" \
	"  function run($a) { usort($a, [$this, 'cmp']); return $a; }\n" \
	"  function cmp($x, $y) {\n" \
	"    global $go;\n" \
	"    if ($go) { $go = false; echo \"ready\\n\"; flush(); sleep(30); }\n" \
	"    return $x <=> $y;\n" \
	"  }\n" \
	"}\n"

/* C -> PHP -> C -> PHP: a usort comparator method, sleeping. */
static const struct live_case live_usort = {
	SORTER
	"function top() { $s = new Sorter; return $s->run([3, 1, 2]); }\n"
	"$go = true;\n"
	"top();\n",
	4, 1, { "Sorter::cmp", "Sorter::run", "top", "{main}" }, { 6, 3, 10, 12 }, false,
};

/*
 * A generator resumed by foreach (zend_generator_resume, C) in a closure
 * array_map calls (C): each is an activation of its own, so the generator
 * frame must be marked TOP, else the walk would run on into its consumer.
 */
static const struct live_case live_generator = {
	"<?php\n"
	"function gen() {\n"
	"  foreach ([1] as $x) { echo \"ready\\n\"; flush(); sleep(30); yield $x; }\n"
	"}\n"
	"function outer() { return array_map(function ($v) { foreach (gen() as $g) {} return $v; }, [1]); }\n"
	"outer();\n",
	2, 1, { "gen", "{closure}" }, { 3, 5 }, false,
};

/*
 * The same sort in a fiber its resumer started. zend_fiber_execute, on the
 * fiber's own C stack, makes EG(current_execute_data) a frame of the
 * internal function {fiber} whose prev_execute_data is the resumer's
 * frame (Fiber::start's, set again at each resume): the chain goes on
 * into the resumer's frames. But the fiber's closure, called by
 * zend_call_function, is TOP and ends the fiber's outermost execute_ex
 * activation, the last on its C stack: the walk stops there; resumer and
 * {main} are not shown.
 */
static const struct live_case live_fiber = {
	SORTER
	"function in_fiber() { $s = new Sorter; return $s->run([3, 1, 2]); }\n"
	"function resumer() { $f = new Fiber(function () { return in_fiber(); }); $f->start(); }\n"
	"$go = true;\n"
	"resumer();\n",
	4, 1, { "Sorter::cmp", "Sorter::run", "in_fiber", "{closure}" }, { 6, 3, 10, 11 }, false,
};

/* A fiber sleeping with no C -> PHP inside: its one activation stops at its closure. */
static const struct live_case live_fiber_leaf = {
	"<?php\n"
	"function leaf() { echo \"ready\\n\"; flush(); sleep(30); }\n"
	"function in_fiber() { leaf(); }\n"
	"function resumer() { $f = new Fiber(function () { in_fiber(); }); $f->start(); }\n"
	"resumer();\n",
	3, 3, { "leaf", "in_fiber", "{closure}" }, { 2, 3, 4 }, true,
};

/*
 * A fiber suspended in Fiber::suspend while the main code sorts:
 * EG(current_execute_data) is the resumer's again; none of the suspended
 * fiber's frames (in_fiber, {closure}) is shown.
 */
static const struct live_case live_fiber_suspended = {
	SORTER
	"function in_fiber() { Fiber::suspend(1); }\n"
	"function top() {\n"
	"  $f = new Fiber(function () { in_fiber(); }); $f->start(); $s = new Sorter; return $s->run([3, 1, 2]);\n"
	"}\n"
	"$go = true;\n"
	"top();\n",
	4, 1, { "Sorter::cmp", "Sorter::run", "top", "{main}" }, { 6, 3, 12, 15 }, false,
};

/* See php82_live.h. */
void php82_live_check(const struct live_case *c, int pid, const char *exe, const char *script)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	const struct vmstack_runtime *rt = vmstack_runtime_find("php");
	const struct php_layout *L = php_layout_of("8.2.");
	struct vmstack_vm_found found;
	struct vmstack_name_buf nb;
	struct vmstack_walk w;
	u64 eg, ips[64];
	unsigned int k, got, users = 0;
	char why[256];

	CHECK(shape_live_detect(pid, "php", exe, &found, why) == VMSTACK_DETECT_YES);
	if (!found.prog) {
		fprintf(stderr, "  %s\n", why);
		return;
	}
	eg = found.desc4.consts[0];
	/* The program's reads (executor_globals, the frames, their functions): the process's. */
	shape_mem();
	fake_mem_process(pid);
	php_prog(&p, L, eg);
	shape_desc(&d, &p);
	if (c->one)
		got = shape_walk_at(&d, &w, SHAPE_VM_LO + 0x777, 4, NULL, ips, 64);
	else
		got = shape_walk_at(&d, &w, SHAPE_LEAF, 0, NULL, ips, 64);
	CHECK(w.flags == VMSTACK_SF_VM);
	for (k = 0; shape_next_named(rt, found.build, pid, ips, got, &k, &nb); k++) {
		CHECK(users < c->n);
		if (users >= c->n) {
			fprintf(stderr, "  frame %u: %s (%s:%u), want none\n", users, nb.function,
				nb.file, nb.line);
			continue;
		}
		CHECK(!strcmp(nb.function, c->fn[users]) && nb.line == c->line[users] &&
		      strstr(nb.file, script));
		if (strcmp(nb.function, c->fn[users]) || nb.line != c->line[users])
			fprintf(stderr, "  frame %u: %s (%s:%u), want %s line %u\n", users,
				nb.function, nb.file, nb.line, c->fn[users], c->line[users]);
		users++;
		/* The inner activation ends: C frames, then the outer one (or main). */
		if (users == c->inner)
			CHECK(k + 1 < got && ips[k + 1] == (c->one ? SHAPE_MAIN_RA : SHAPE_MID1_RA));
	}
	CHECK(users == c->n);
}

/* Run @c's script in php8.2, walk its frames with the program on its memory, name them. */
static void live_walk(const struct live_case *c)
{
	int pid;
	FILE *s, *out;

	if (access("/usr/bin/php8.2", X_OK)) {
		fprintf(stderr, "  /usr/bin/php8.2 absent: the live PHP walk not tested\n");
		return;
	}
	s = fopen("build/unit-php-live.php", "w");
	CHECK(s && fputs(c->script, s) >= 0);
	if (s)
		fclose(s);
	pid = spawn_php((char *const[]){ "php8.2", "-n", "build/unit-php-live.php", NULL }, &out);
	php82_live_check(c, pid, "php8.2", "unit-php-live.php");
	end_php(pid, out);
	unlink("build/unit-php-live.php");
}

UNIT_TEST(php82_live_usort)
{
	live_walk(&live_usort);
}

UNIT_TEST(php82_live_generator)
{
	live_walk(&live_generator);
}

UNIT_TEST(php82_live_fiber)
{
	live_walk(&live_fiber);
}

UNIT_TEST(php82_live_fiber_leaf)
{
	live_walk(&live_fiber_leaf);
}

UNIT_TEST(php82_live_fiber_suspended)
{
	live_walk(&live_fiber_suspended);
}

/* A process whose opcache JIT is on: named, not described. */
UNIT_TEST(php82_live_jit)
{
	char *const argv[] = { "php8.2", "-d", "opcache.enable_cli=1", "-d",
			       "opcache.jit_buffer_size=8M", "-d", "opcache.jit=tracing", "-r",
			       "echo \"ready\\n\"; flush(); sleep(30);", NULL };
	struct vmstack_vm_found found;
	char why[256] = "";
	FILE *out;
	int pid;

	if (access("/usr/bin/php8.2", X_OK) || !php_has_opcache())
		return;
	pid = spawn_php(argv, &out);
	CHECK(live_detect(pid, &found, why) == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "opcache JIT") != NULL);
	end_php(pid, out);
}
