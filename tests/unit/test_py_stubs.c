// SPDX-License-Identifier: GPL-2.0
/*
 * CPython's perf stubs (-X perf) named in /tmp/perf-PID.map "py::FUNC:FILE":
 * a stub whose callee is a script frame (the Python function it called,
 * merged) is not shown, so that -X perf's stacks are those without it;
 * a stub with no merged Python frame above it (the sampled one, or under
 * native code), and another JIT's perf-map names, are.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "process.h"
#include "unit.h"
#include "user_names.h"

__attribute__((noinline)) int unit_stub_caller(int x)
{
	return 17 * x + 6;
}

#define AT(fn) ((uint64_t)(uintptr_t)&(fn) + 1)
#define SCRIPT(id) vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, id), 0

UNIT_TEST(py_stubs_under_python_frames_hidden)
{
	char map[64], *text;
	unsigned char *arena = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t a = (uint64_t)(uintptr_t)arena;
	struct vmstack_process *s;
	FILE *f;

	CHECK(arena != MAP_FAILED);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map, "w");
	CHECK(f != NULL);
	fprintf(f, "%" PRIx64 " 40 py::leaf:/x.py\n%" PRIx64 " 40 py::top:/x.py\n%" PRIx64
		" 40 jitted_loop\n", a, a + 0x40, a + 0x80);
	fclose(f);
	s = vmstack_process_new(getpid());
	CHECK(vmstack_process_refresh(s) > 0);
	vmstack_process_load_perf_map(s);
	{
		/* leaf's and top's Python frames, each above its stub: the stubs go. */
		const uint64_t ips[] = { SCRIPT(0x1111), a + 0x10, SCRIPT(0x2222), a + 0x50,
					 AT(unit_stub_caller) };

		text = user_folded(s, ips, 7, 0);
		CHECK(text && !strcmp(text, "app;unit_stub_caller;0x2222_[vm];0x1111_[vm] 1\n"));
		free(text);
	}
	{
		/* Sampled in a stub, and a stub under native code: both shown. */
		const uint64_t ips[] = { a + 0x10, AT(unit_stub_caller), a + 0x50,
					 AT(unit_stub_caller) };

		text = user_folded(s, ips, 4, 0);
		CHECK(text && !strcmp(text, "app;unit_stub_caller;py::top:/x.py;unit_stub_caller;"
				      "py::leaf:/x.py 1\n"));
		free(text);
	}
	{
		/* Another JIT's code under a script frame keeps its name. */
		const uint64_t ips[] = { SCRIPT(0x1111), a + 0x90, AT(unit_stub_caller) };

		text = user_folded(s, ips, 4, 0);
		CHECK(text && !strcmp(text, "app;unit_stub_caller;jitted_loop;0x1111_[vm] 1\n"));
		free(text);
	}
	vmstack_process_free(s);
	unlink(map);
	munmap(arena, 4096);
}
