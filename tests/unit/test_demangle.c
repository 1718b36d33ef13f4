// SPDX-License-Identifier: GPL-2.0
/*
 * Demangling: C++ and Rust (legacy and v0) symbol names made readable, C's
 * left alone; and through a process object, functions of this very program
 * under mangled names (asm labels, so no C++ compiler is needed) named
 * demangled, whole however long, in a profile and its folded text, or as
 * their file spells them with --no-demangle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "output/output.h"
#include "profile.h"
#include "process.h"
#include "stacks.h"
#include "unit.h"
#include "user_names.h"

#define FIBER_LOOP "_ZN9tarantool5fiber4loopEv"
#define RUST_LEGACY "_ZN4core3fmt5write17h8f2c5d6e4b3a2918E"
#define RUST_V0 "_RNvNtCs1234_7mycrate6module4func"
/* What g++ 12 calls app::cache<std::string, std::map<std::string, std::vector<int>>>::get. */
#define LONG_CXX "_ZNK3app5cacheINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt3map" \
	"IS6_St6vectorIiSaIiEESt4lessIS6_ESaISt4pairIKS6_SA_EEEE3getERSE_i"
#define STRING "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
#define VECTOR "std::vector<int, std::allocator<int> >"
#define LONG_READABLE "app::cache<" STRING ", std::map<" STRING ", " VECTOR ", std::less<" \
	STRING " >, std::allocator<std::pair<" STRING " const, " VECTOR " > > > >::get(" \
	STRING " const&, int) const"

UNIT_TEST(demangle_names)
{
	static const struct { const char *mangled, *readable; } v[] = {
		{ FIBER_LOOP, "tarantool::fiber::loop()" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZNK3app5cacheINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vector"
		  "IiSaIiEEE3getERKS6_i",
		  "app::cache<" STRING ", " VECTOR " >::get(" STRING " const&, int) const" },
		{ LONG_CXX, LONG_READABLE },
		{ "_Z3fooi.isra.0", "foo(int) [clone .isra.0]" },
		{ "_ZN12_GLOBAL__N_13barEv", "(anonymous namespace)::bar()" },
		/* Rust: legacy names lose their hash; v0 names with generic arguments. */
		{ RUST_LEGACY, "core::fmt::write" },
		{ RUST_V0, "mycrate::module::func" },
		{ "_RINvCs1234_7mycrate4funcmE", "mycrate::func::<u32>" },
	};
	/* C's names, and names that only look mangled. */
	static const char *const plain[] = {
		"main", "lj_gc_step", "memcpy", "foo.isra.0", "_Zfoo", "_R", "_Z", "",
		"_D3foo3barFZv", "foo__bar",
	};
	size_t i;
	char *d;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		d = vmstack_demangle(v[i].mangled);
		if (!d || strcmp(d, v[i].readable)) {
			fprintf(stderr, "  %s: '%s'\n", v[i].mangled, d ? d : "(null)");
			unit_failed = 1;
		}
		free(d);
	}
	CHECK(strlen(LONG_READABLE) > 512);
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		d = vmstack_demangle(plain[i]);
		CHECK(d == NULL);
		free(d);
	}
}

/* Functions named as a C++ or Rust compiler would (distinct bodies: none is folded into another). */
int unit_fiber_loop(int x) __asm__(FIBER_LOOP);
int unit_rust_legacy(int x) __asm__(RUST_LEGACY);
int unit_rust_v0(int x) __asm__(RUST_V0);
int unit_long_cxx(int x) __asm__(LONG_CXX);

__attribute__((noinline)) int unit_fiber_loop(int x)
{
	return 5 * x + 1;
}

__attribute__((noinline)) int unit_rust_legacy(int x)
{
	return 7 * x + 2;
}

__attribute__((noinline)) int unit_rust_v0(int x)
{
	return 9 * x + 3;
}

__attribute__((noinline)) int unit_long_cxx(int x)
{
	return 11 * x + 4;
}

__attribute__((noinline)) int unit_plain_c(int x)
{
	return 13 * x + 5;
}

/* Inside each function: the sampled PC, or a return address past the call. */
#define AT(fn) ((uint64_t)(uintptr_t)&(fn) + 1)

static const char *native_name(struct vmstack_process *s, uint64_t addr)
{
	struct vmstack_frame f = { .kind = VMSTACK_FRAME_NATIVE, .value = addr };
	static char buf[64];
	struct vmstack_name n;

	vmstack_process_name(s, &f, NULL, &n, buf, sizeof(buf));
	return n.function;
}

UNIT_TEST(demangle_native_frames)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	struct vmstack_name names[VMSTACK_MAX_INLINE];
	char buf[64];

	CHECK(vmstack_process_refresh(s) > 0);
	CHECK(!strcmp(native_name(s, AT(unit_fiber_loop)), "tarantool::fiber::loop()"));
	CHECK(!strcmp(native_name(s, AT(unit_rust_legacy)), "core::fmt::write"));
	CHECK(!strcmp(native_name(s, AT(unit_rust_v0)), "mycrate::module::func"));
	CHECK(!strcmp(native_name(s, AT(unit_plain_c)), "unit_plain_c"));
	/* Not cut to the caller's buffer: it is the symbol's own. */
	CHECK(!strcmp(native_name(s, AT(unit_long_cxx)), LONG_READABLE));
	/* Into a buffer, cut to it. */
	user_name(s, AT(unit_long_cxx), 0, buf, sizeof(buf));
	CHECK(strlen(buf) == sizeof(buf) - 1 && !strncmp(buf, LONG_READABLE, sizeof(buf) - 1));
	/* With lines, the outermost frame is the function, demangled too. */
	CHECK(user_lines(s, AT(unit_fiber_loop), names) >= 1);
	CHECK(!strcmp(names[0].function, "tarantool::fiber::loop()"));
	/* --no-demangle: as the file spells them, frames with lines found again. */
	vmstack_process_demangle(s, false);
	CHECK(!strcmp(native_name(s, AT(unit_fiber_loop)), FIBER_LOOP));
	CHECK(!strcmp(native_name(s, AT(unit_rust_v0)), RUST_V0));
	CHECK(!strcmp(native_name(s, AT(unit_long_cxx)), LONG_CXX));
	CHECK(!strcmp(native_name(s, AT(unit_plain_c)), "unit_plain_c"));
	CHECK(user_lines(s, AT(unit_fiber_loop), names) >= 1);
	CHECK(!strcmp(names[0].function, FIBER_LOOP));
	vmstack_process_demangle(s, true);
	CHECK(!strcmp(native_name(s, AT(unit_fiber_loop)), "tarantool::fiber::loop()"));
	vmstack_process_free(s);
}

/*
 * A profile's frames and its folded lines: demangled names whole (spaces,
 * parentheses, '<>', commas and all: one line, the count after the last
 * space), or mangled with no_demangle.
 */
UNIT_TEST(demangle_profile_whole_names)
{
	struct vmstack_process *s = vmstack_process_new(getpid());
	const uint64_t ips[] = { AT(unit_long_cxx), AT(unit_rust_v0), AT(unit_fiber_loop),
				 AT(unit_plain_c) };
	char *text;

	CHECK(vmstack_process_refresh(s) > 0);
	text = user_folded(s, ips, 4, 0);
	CHECK(text && !strcmp(text, "app;unit_plain_c;tarantool::fiber::loop();mycrate::module::func;"
			      LONG_READABLE " 1\n"));
	free(text);
	text = user_folded(s, ips, 4, 1);
	CHECK(text && !strcmp(text, "app;unit_plain_c;" FIBER_LOOP ";" RUST_V0 ";" LONG_CXX " 1\n"));
	free(text);
	vmstack_process_free(s);
}

/* A C++ method inlined into another, built here: an -O2 build's DWARF. */
static const char inline_src[] =
	"volatile unsigned long sink;\n"
	"namespace app {\n"
	"struct Engine {\n"
	"	__attribute__((always_inline)) void step(int n) { for (int i = 0; i < n; i++) sink += i * 3; }\n"
	"	void run(double s);\n"
	"};\n"
	"void Engine::run(double s) { step((int)s); step((int)s + 7); }\n"
	"}\n"
	"int main() { app::Engine e; e.run(3); }\n";

/*
 * The inlined frame (--lines) at some address of the outer function's
 * code, whose own frame is @outer: its name, or "" if no address has one.
 */
static void inlined_name(struct vmstack_process *s, uint64_t map, uint64_t addr,
			 uint64_t size, const char *outer, char *name, size_t len)
{
	struct vmstack_name names[VMSTACK_MAX_INLINE];
	uint64_t a;

	*name = 0;
	for (a = addr; a < addr + size && !*name; a++)
		if (user_lines(s, map + a, names) == 2 &&
		    !strcmp(names[0].function, outer) && (names[1].flags & VMSTACK_NAME_INLINED))
			snprintf(name, len, "%s", names[1].function);
}

/* With --lines, a C++ function inlined is named whole too, as its symbol would be. */
UNIT_TEST(demangle_inlined_frames)
{
	char dir[] = "/tmp/vmstack-unit-XXXXXX", src[64], bin[64], cmd[256], name[128];
	const uint64_t map = 0x10000000;
	unsigned long long addr = 0, size = 0;
	struct vmstack_process *s;
	char *maps;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(src, sizeof(src), "%s/inl.cc", dir);
	snprintf(bin, sizeof(bin), "%s/inl", dir);
	f = fopen(src, "w");
	CHECK(f && fputs(inline_src, f) >= 0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "g++ -O2 -g -o %s %s && nm -S %s | grep ' _ZN3app6Engine3runEd$'",
		 bin, src, bin);
	f = popen(cmd, "r");
	CHECK(f && fscanf(f, "%llx %llx", &addr, &size) == 2 && size);
	pclose(f);
	/* Mapped whole from offset 0: an address is the file's (as a PIE's code is). */
	s = vmstack_process_new(getpid());
	CHECK(asprintf(&maps, "%llx-%llx r-xp 00000000 00:00 1 %s\n", (unsigned long long)map,
		       (unsigned long long)map + 0x100000, bin) > 0);
	f = fmemopen(maps, strlen(maps), "r");
	CHECK(vmstack_process_add_maps(s, f) == 1);
	fclose(f);
	inlined_name(s, map, addr, size, "app::Engine::run(double)", name, sizeof(name));
	CHECK(!strcmp(name, "app::Engine::step(int)"));
	vmstack_process_demangle(s, false);
	inlined_name(s, map, addr, size, "_ZN3app6Engine3runEd", name, sizeof(name));
	CHECK(!strcmp(name, "_ZN3app6Engine4stepEi"));
	vmstack_process_free(s);
	free(maps);
	unlink(bin);
	unlink(src);
	rmdir(dir);
}
