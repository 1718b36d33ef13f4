// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby runtime on a live ruby3.1 stopped in sleep inside a sort_by
 * block (C -> Ruby -> C -> Ruby), in the root fiber or in a fiber of its
 * own, or with a fiber suspended: detection on the process (libruby its
 * first TLS module), the execution context where the program looks for
 * it (fs base + the offset detection computed, the fs base read with
 * ptrace), the program on the process's memory, and the namer on
 * what it shows. Skipped when ruby3.1 is absent.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shape.h"
#include "util.h"
#include "vm/ruby/ruby.h"
#include "vm/runtime.h"

/*
 * A class whose key, called in a sort_by block (C -> Ruby -> C -> Ruby),
 * says "ready" and sleeps the first time; lines 1-29 of each script.
 * key's 20 lines of Y put its sleep (line 26) past the line index's first
 * 54 positions (its blocks of 512).
 */
#define Y "    y = x + 1\n"
#define SORTER \
	"class Sorter\n" \
	"  def run(a)\n" \
	"    a.sort_by { |x| key(x) }\n" \
	"  end\n" \
	"  def key(x)\n" \
	Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y \
	"    if $go then $go = false; $stdout.write(\"ready\\n\"); $stdout.flush; sleep 30 end\n" \
	"    x\n" \
	"  end\n" \
	"end\n"

/*
 * A script stopped in sleep and the Ruby frames the walk must show there,
 * innermost first, and nothing after them: the first @inner in the
 * sandwich's inner activation (ending at a FINISH frame), the others in
 * the outer one; each at @line (the call it made), its iseq starting at
 * @start (the main script's 0).
 */
struct ruby_live_case {
	const char *script;
	unsigned int n, inner;
	const char *fn[6];
	unsigned int line[6], start[6];
};

/* Innermost first: key, then the block sort_by yields to (FINISH), then past C: run, top, <main>. */
static const struct ruby_live_case live_sort_by = {
	SORTER
	"def top\n"
	"  Sorter.new.run([3, 1, 2])\n"
	"end\n"
	"$go = true\n"
	"top\n",
	5, 2, { "key", "block in run", "run", "top", "<main>" },
	{ 26, 3, 3, 31, 34 }, { 5, 3, 2, 30, 0 },
};

/*
 * The same sort inside a fiber its resumer made. Switching to it makes the
 * fiber's execution context the thread's ruby_current_ec; its frames are
 * on its own VM stack, whose first (outermost) Ruby frame is the fiber's
 * block, pushed FINISH by the C that starts the fiber; above it only the
 * fiber's dummy frame. So the walk ends at "block in resumer": resumer and
 * <main> (on the thread's own VM stack, resume a C frame there) are not
 * shown.
 */
static const struct ruby_live_case live_fiber = {
	SORTER
	"def in_fiber\n"
	"  Sorter.new.run([3, 1, 2])\n"
	"end\n"
	"def resumer\n"
	"  Fiber.new { in_fiber }.resume\n"
	"end\n"
	"$go = true\n"
	"resumer\n",
	5, 2, { "key", "block in run", "run", "in_fiber", "block in resumer" },
	{ 26, 3, 3, 31, 34 }, { 5, 3, 2, 30, 34 },
};

/*
 * A fiber with no C -> Ruby inside: one activation, the fiber's frames in
 * the inner one; the outer activation (the sandwich's, not the fiber's
 * native stack) finds only the fiber's dummy frame and shows nothing.
 */
static const struct ruby_live_case live_fiber_leaf = {
	SORTER
	"def in_fiber\n"
	"  Sorter.new.key(1)\n"
	"end\n"
	"def resumer\n"
	"  Fiber.new { in_fiber }.resume\n"
	"end\n"
	"$go = true\n"
	"resumer\n",
	3, 3, { "key", "in_fiber", "block in resumer" }, { 26, 31, 34 }, { 5, 30, 34 },
};

/*
 * A fiber suspended in Fiber.yield while the root fiber sorts: the
 * thread's context is the root's again, and the walk shows its frames,
 * none of the suspended fiber's (in_fiber, block in top).
 */
static const struct ruby_live_case live_fiber_suspended = {
	SORTER
	"def in_fiber\n"
	"  Fiber.yield 1\n"
	"end\n"
	"def top\n"
	"  f = Fiber.new { in_fiber }\n"
	"  f.resume\n"
	"  Sorter.new.run([3, 1, 2])\n"
	"end\n"
	"$go = true\n"
	"top\n",
	5, 2, { "key", "block in run", "run", "top", "<main>" },
	{ 26, 3, 3, 36, 39 }, { 5, 3, 2, 33, 0 },
};

/* The main thread's fs base, the process stopped (0 if ptrace is refused). */
static u64 stopped_fs_base(int pid)
{
	struct user_regs_struct regs;
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) || ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
	    waitpid(pid, &status, 0) != pid || ptrace(PTRACE_GETREGS, pid, 0, &regs))
		return 0;
	return regs.fs_base;
}

/* ruby3.1 running @script, its output in *@out; once it wrote "ready", in sleep. */
static int spawn_ruby(const char *script, FILE **out)
{
	char ready[8] = "";
	int fds[2], pid;
	FILE *s = fopen("build/unit-ruby-live.rb", "w");

	CHECK(s && fputs(script, s) >= 0);
	if (s)
		fclose(s);
	CHECK(!pipe(fds));
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		execl("/usr/bin/ruby3.1", "ruby3.1", "build/unit-ruby-live.rb", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*out = fdopen(fds[0], "r");
	CHECK(*out && fgets(ready, sizeof(ready), *out) && !strcmp(ready, "ready\n"));
	usleep(100000);	/* into sleep */
	return pid;
}

/*
 * The walk of process @pid stopped at @fs: the program on its memory, its
 * thread's context where the program looks for it (the fs base + the
 * offset detection computed), the namer on what it shows; CHECKs @c's
 * frames and that no other VM frame follows them.
 */
static void ruby_live_check(const struct ruby_live_case *c, int pid, u64 fs,
			    const struct vmstack_vm_found *found)
{
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	const struct vmstack_runtime *rt = vmstack_runtime_find("ruby");
	const struct ruby_layout *L = ruby_layout_of("3.1.2");
	struct vmstack_name_buf nb;
	struct vmstack_walk w;
	u64 ec = 0, stack = 0, mstart = 0, msize = 0, ips[64];
	unsigned int k, got, users = 0;
	int32_t tls_ec;

	/* The program's load from r6, the fs base: ruby_current_ec's offset. */
	for (k = 0; k < found->desc4.prog_len; k++)
		if (found->desc4.prog[k].op == VMSTACK_VM4_LD64 && found->desc4.prog[k].regs >> 4 == 6)
			break;
	CHECK(k < found->desc4.prog_len);
	tls_ec = k < found->desc4.prog_len ? found->desc4.prog[k].imm : 0;
	CHECK(!read_target(pid, fs + (u64)(int64_t)tls_ec, &ec, 8) && ec);
	CHECK(!read_target(pid, ec + L->ec_vm_stack, &stack, 8) && stack);
	/* The context's machine stack: its top above its size (8 MiB less a page, 0x81000). */
	CHECK(!read_target(pid, ec + L->ec_stack_start, &mstart, 8) &&
	      !read_target(pid, ec + L->ec_stack_maxsize, &msize, 8) &&
	      msize >= 0x10000 && msize <= 0x800000 && mstart > msize);
	shape_mem();
	fake_mem_process(pid);
	fake_put64(SHAPE_FS + (u64)(int64_t)tls_ec, ec);
	/* The sandwich's native frames at the top of the context's machine stack. */
	fake_mem_map(mstart - 0x4000, 0x4000);
	for (k = 0; k < 5; k++)
		shape_bp_at[k] = mstart - 0x3000 + 0x100 * k;
	ruby_prog(&p, L, tls_ec);
	shape_desc(&d, &p);
	got = shape_walk_at(&d, &w, SHAPE_LEAF, 0, NULL, ips, 64);
	CHECK(w.flags == VMSTACK_SF_VM);
	for (k = 0; shape_next_named(rt, found->build, pid, ips, got, &k, &nb); k++) {
		CHECK(users < c->n);
		if (users >= c->n) {
			fprintf(stderr, "  frame %u: %s (%s:%u), want none\n", users, nb.function,
				nb.file, nb.line);
			continue;
		}
		CHECK(!strcmp(nb.function, c->fn[users]) && nb.line == c->line[users] &&
		      nb.start_line == c->start[users] && strstr(nb.file, "unit-ruby-live.rb"));
		if (strcmp(nb.function, c->fn[users]) || nb.line != c->line[users])
			fprintf(stderr, "  frame %u: %s (%s:%u), want %s line %u\n", users,
				nb.function, nb.file, nb.line, c->fn[users], c->line[users]);
		users++;
		/* The inner activation ends at a FINISH frame: C frames follow. */
		if (users == c->inner)
			CHECK(k + 2 < got && ips[k + 1] == SHAPE_MID1_RA);
	}
	CHECK(users == c->n);
}

/*
 * Run @c's script in ruby3.1, detect the runtime on the process (libruby
 * its first TLS module) and check its walk there.
 */
static void ruby_live_walk(const struct ruby_live_case *c)
{
	struct vmstack_vm_found found;
	char why[256] = "";
	int pid, status;
	FILE *out;
	u64 fs;

	if (access("/usr/bin/ruby3.1", X_OK) || !ruby_layout_of("3.1.2")) {
		fprintf(stderr, "  /usr/bin/ruby3.1 absent: the live Ruby walk not tested\n");
		return;
	}
	pid = spawn_ruby(c->script, &out);
	CHECK(shape_live_detect(pid, "ruby", "libruby", &found, why) == VMSTACK_DETECT_YES);
	fs = stopped_fs_base(pid);
	CHECK(fs != 0);
	if (found.prog && fs)
		ruby_live_check(c, pid, fs, &found);
	else if (!found.prog)
		fprintf(stderr, "  %s\n", why);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (out)
		fclose(out);
	unlink("build/unit-ruby-live.rb");
}

UNIT_TEST(ruby31_live_sort_by)
{
	ruby_live_walk(&live_sort_by);
}

UNIT_TEST(ruby31_live_fiber)
{
	ruby_live_walk(&live_fiber);
}

UNIT_TEST(ruby31_live_fiber_leaf)
{
	ruby_live_walk(&live_fiber_leaf);
}

UNIT_TEST(ruby31_live_fiber_suspended)
{
	ruby_live_walk(&live_fiber_suspended);
}
