// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby runtime on a live ruby3.1 stopped in sleep inside a sort_by
 * block (C -> Ruby -> C -> Ruby): detection on the process (libruby its
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
 * Innermost first: key, then the block sort_by yields to (FINISH), then
 * past C: run, top, <main>. key's 20 lines of Y put its sleep past the
 * line index's first 54 positions (its blocks of 512).
 */
#define Y "    y = x + 1\n"
static const char ruby_script[] =
	"class Sorter\n"
	"  def run(a)\n"
	"    a.sort_by { |x| key(x) }\n"
	"  end\n"
	"  def key(x)\n"
	Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y Y
	"    if $go then $go = false; $stdout.write(\"ready\\n\"); $stdout.flush; sleep 30 end\n"
	"    x\n"
	"  end\n"
	"end\n"
	"def top\n"
	"  Sorter.new.run([3, 1, 2])\n"
	"end\n"
	"$go = true\n"
	"top\n";

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

UNIT_TEST(ruby31_live_sort_by)
{
	static const char *const want_fn[] = { "key", "block in run", "run", "top", "<main>" };
	/* Where each is (the call it made); their first lines, the main script's 0. */
	static const unsigned int want_line[] = { 26, 3, 3, 31, 34 };
	static const unsigned int want_start[] = { 5, 3, 2, 30, 0 };
	static struct vmstack_vm_desc4 d;
	static struct vm_prog p;
	const struct vmstack_runtime *rt = vmstack_runtime_find("ruby");
	const struct ruby_layout *L = ruby_layout_of("3.1.2");
	struct vmstack_vm_found found;
	struct vmstack_name_buf nb;
	struct vmstack_walk w;
	char why[256] = "", ready[8] = "";
	u64 fs, ec = 0, stack = 0, ips[64];
	unsigned int k, got, users = 0;
	int fds[2], pid, status;
	int32_t tls_ec;
	FILE *s, *out;

	if (access("/usr/bin/ruby3.1", X_OK) || !L) {
		fprintf(stderr, "  /usr/bin/ruby3.1 absent: the live Ruby walk not tested\n");
		return;
	}
	s = fopen("build/unit-ruby-live.rb", "w");
	CHECK(s && fputs(ruby_script, s) >= 0);
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
	out = fdopen(fds[0], "r");
	CHECK(out && fgets(ready, sizeof(ready), out) && !strcmp(ready, "ready\n"));
	usleep(100000);	/* into sleep */
	CHECK(shape_live_detect(pid, "ruby", "libruby", &found, why) == VMSTACK_DETECT_YES);
	fs = stopped_fs_base(pid);
	CHECK(fs != 0);
	if (found.prog && fs) {
		/* The program's load from r6, the fs base: ruby_current_ec's offset. */
		for (k = 0; k < found.desc4.prog_len; k++)
			if (found.desc4.prog[k].op == VMSTACK_VM4_LD64 &&
			    found.desc4.prog[k].regs >> 4 == 6)
				break;
		CHECK(k < found.desc4.prog_len);
		tls_ec = k < found.desc4.prog_len ? found.desc4.prog[k].imm : 0;
		CHECK(!read_target(pid, fs + (u64)(int64_t)tls_ec, &ec, 8) && ec);
		CHECK(!read_target(pid, ec + L->ec_vm_stack, &stack, 8) && stack);
		shape_mem();
		fake_mem_process(pid);
		fake_put64(SHAPE_FS + (u64)(int64_t)tls_ec, ec);
		ruby_prog(&p, L, tls_ec);
		shape_desc(&d, &p);
		got = shape_walk_at(&d, &w, SHAPE_LEAF, 0, NULL, ips, 64);
		CHECK(w.flags == VMSTACK_SF_VM);
		for (k = 0; users < 5 && shape_next_named(rt, found.build, pid, ips, got, &k, &nb);
		     k++) {
			CHECK(!strcmp(nb.function, want_fn[users]) && nb.line == want_line[users] &&
			      nb.start_line == want_start[users] && strstr(nb.file, "unit-ruby-live.rb"));
			if (strcmp(nb.function, want_fn[users]) || nb.line != want_line[users])
				fprintf(stderr, "  frame %u: %s (%s:%u), want %s line %u\n", users,
					nb.function, nb.file, nb.line, want_fn[users], want_line[users]);
			users++;
			/* The inner activation ends at the block sort_by yielded to. */
			if (users == 2)
				CHECK(k + 2 < got && ips[k + 1] == SHAPE_MID1_RA);
		}
		CHECK(users == 5);
	} else if (!found.prog) {
		fprintf(stderr, "  %s\n", why);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (out)
		fclose(out);
	unlink("build/unit-ruby-live.rb");
}
