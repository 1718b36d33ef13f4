// SPDX-License-Identifier: GPL-2.0
/*
 * The Ruby layout checked against the installed libruby's code and
 * against a live ruby3.1 busy in Ruby code (its frames change under the
 * reads), half the time in a fiber (its own context and VM stack): the
 * right layout agrees every time; a layout with one field
 * moved is refused by the code, by the process, with what disagrees.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_facts.h"
#include "file.h"
#include "maps.h"
#include "unit.h"
#include "util.h"
#include "vm/ruby/ruby.h"

#define LIBRUBY "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1"
/* ruby_current_ec at fs - 0x10 + 8 in ruby3.1 (ruby_builds_found checks the program's). */
#define TLS_EC (-8)

UNIT_TEST(ruby_code_checks_layout)
{
	const struct ruby_layout *good = ruby_layout_of("3.1.2");
	struct ruby_layout bad;
	struct vmstack_file *file;
	struct stat st;
	char why[256] = "";
	Elf *elf;

	if (stat(LIBRUBY, &st) || !good) {
		fprintf(stderr, "  %s absent: the Ruby code check not tested\n", LIBRUBY);
		return;
	}
	file = vmstack_file_get(st.st_dev, st.st_ino, LIBRUBY, 0);
	elf = file ? vmstack_file_elf(file) : NULL;
	CHECK(elf != NULL);
	if (!elf)
		return;
	CHECK(ruby_code_agrees(good, elf, why, sizeof(why)));
	bad = *good;
	bad.cfp_size = 56;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) &&
	      strstr(why, "control frame size"));
	bad = *good;
	bad.ec_cfp = 24;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) && strstr(why, "cfp elsewhere"));
	bad = *good;
	bad.cfp_iseq = 24;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) && strstr(why, "iseq or pc"));
	bad = *good;
	bad.flag_cframe = 0x40;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) && strstr(why, "C frames"));
	bad = *good;
	bad.body_label = 72;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) && strstr(why, "rb_iseq_label"));
	bad = *good;
	bad.body_first_lineno = 80;
	CHECK(!ruby_code_agrees(&bad, elf, why, sizeof(why)) &&
	      strstr(why, "rb_iseq_first_lineno") && strstr(why, "Ruby 3.1.2 whose code"));
	vmstack_file_put(file);
}

/* Where ruby_current_vm_ptr is in process @pid (libruby's load bias + its value), or 0. */
static uint64_t vm_ptr_of(int pid)
{
	char path[64], line[512];
	struct vmstack_map m;
	uint64_t at = 0;
	struct stat st;
	GElf_Sym s;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && !at && fgets(line, sizeof(line), f)) {
		struct vmstack_file *file;

		if (vmstack_map_parse(line, &m) || m.offset || !strstr(m.path, "libruby") ||
		    stat(m.path, &st))
			continue;
		file = vmstack_file_get(st.st_dev, st.st_ino, m.path, 0);
		/* Its first PT_LOAD is at 0 (a shared library's): the mapping's start is the bias. */
		if (file && vmstack_file_elf(file) &&
		    !vmstack_elf_symbol(vmstack_file_elf(file), "ruby_current_vm_ptr", &s))
			at = m.start + s.st_value;
		vmstack_file_put(file);
	}
	if (f)
		fclose(f);
	return at;
}

UNIT_TEST(ruby_process_checks_layout)
{
	static const char script[] =
		"def work(n) s = 0; n.times { |i| s += i * i }; s end\n"
		"$stdout.write(\"ready\\n\"); $stdout.flush\n"
		"loop { work(1000); Fiber.new { work(1000) }.resume }\n";
	const struct ruby_layout *good = ruby_layout_of("3.1.2");
	struct ruby_layout bad;
	char why[512] = "", ready[8] = "";
	unsigned int i, agreed = 0;
	int fds[2], pid, status;
	uint64_t vm_ptr;
	FILE *out;

	if (access("/usr/bin/ruby3.1", X_OK) || !good) {
		fprintf(stderr, "  /usr/bin/ruby3.1 absent: the live Ruby check not tested\n");
		return;
	}
	CHECK(!pipe(fds));
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		execl("/usr/bin/ruby3.1", "ruby3.1", "-e", script, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	CHECK(out && fgets(ready, sizeof(ready), out) && !strcmp(ready, "ready\n"));
	vm_ptr = vm_ptr_of(pid);
	CHECK(vm_ptr != 0);
	/* The thread runs Ruby code throughout: the check holds at any moment. */
	for (i = 0; i < 50; i++) {
		agreed += ruby_process_agrees(good, pid, vm_ptr, TLS_EC, why, sizeof(why));
		usleep(2000);
	}
	CHECK(agreed == 50);
	if (agreed != 50)
		fprintf(stderr, "  %s\n", why);
	bad = *good;
	bad.th_ec = 0x30;
	CHECK(!ruby_process_agrees(&bad, pid, vm_ptr, TLS_EC, why, sizeof(why)) &&
	      strstr(why, "point back to the thread") && strstr(why, "Ruby 3.1.2 whose running VM"));
	CHECK(!ruby_process_agrees(good, pid, vm_ptr, TLS_EC - 8, why, sizeof(why)) &&
	      strstr(why, "ruby_current_ec"));
	/*
	 * A wrong stack or frame field is found later in a try than a fiber
	 * switch's passing mismatch of the context (half of the tries here):
	 * its reason may not be the one said most, only the refusal is sure.
	 */
	bad = *good;
	bad.ec_vm_stack_size = 0;
	CHECK(!ruby_process_agrees(&bad, pid, vm_ptr, TLS_EC, why, sizeof(why)) &&
	      strstr(why, "Ruby 3.1.2 whose running VM"));
	bad = *good;
	bad.cfp_size = 56;
	CHECK(!ruby_process_agrees(&bad, pid, vm_ptr, TLS_EC, why, sizeof(why)));
	bad = *good;
	bad.cfp_iseq = 24;	/* self: not an iseq */
	CHECK(!ruby_process_agrees(&bad, pid, vm_ptr, TLS_EC, why, sizeof(why)) &&
	      strstr(why, "Ruby 3.1.2 whose running VM"));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (out)
		fclose(out);
}

/*
 * From the moment libruby is mapped (as a launched program's detection
 * may run) through start-up, a loop and a sleep: the right layout never
 * disagrees (the VM not up yet, a thread with only its dummy frame).
 */
UNIT_TEST(ruby_process_check_at_start)
{
	const struct ruby_layout *good = ruby_layout_of("3.1.2");
	unsigned int checks = 0, bad = 0;
	uint64_t vm_ptr = 0, t0 = 0;
	char why[512] = "";
	int pid, status;
	struct timespec ts;

	if (access("/usr/bin/ruby3.1", X_OK) || !good)
		return;
	pid = fork();
	if (!pid) {
		execl("/usr/bin/ruby3.1", "ruby3.1", "--disable-gems", "-e",
		      "x = 0; 2_000_000.times { x += 1 }; sleep 10", (char *)NULL);
		_exit(127);
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!t0)
			t0 = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
		if ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 - t0 > 600 ||
		    waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (!vm_ptr) {
			vm_ptr = vm_ptr_of(pid);
			continue;
		}
		checks++;
		if (!ruby_process_agrees(good, pid, vm_ptr, TLS_EC, why, sizeof(why)) && !bad++)
			fprintf(stderr, "  %s\n", why);
	}
	fprintf(stderr, "  %u checks from libruby's mapping on, %u disagreed\n", checks, bad);
	CHECK(checks > 50 && !bad);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
