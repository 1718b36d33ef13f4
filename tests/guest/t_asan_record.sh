# The recorder built with AddressSanitizer and UBSan (make asan) records
# targets whose mappings keep changing (dlopen/dlclose churn) and whose
# stacks cross into a VM (the LuaJIT sandwich), and Tarantool (the
# original crash: its LuaJIT layout from DWARF, 32-bit references, fibers,
# JIT on), and CPython 3.11 (names read from its code objects, by line;
# extensions dlopen'ed; the C->Py->C->Py->C sandwich): a report of either
# sanitizer, or a leak, fails it.
. tests/guest/lib.sh
release_only "the recorder under AddressSanitizer and UBSan: its findings are user space's" || exit 0
rec=build/asan/vmstack-record
[ -x $rec ] || fail "$rec missing (make asan)"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitized() {  # name, stderr file, exit code
	head -40 "$2"
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$2" ||
		fail "$1: a sanitizer report"
	[ "$3" = 0 ] || fail "$1: the recorder exited with $3"
}
mkdir -p /tmp/dla
for i in $(seq 0 49); do cp build/workloads/libdlspin.so /tmp/dla/lib$i.so; done
$rec -q --stats -o /tmp/asan-dl.folded -- build/workloads/dlchurn /tmp/dla 50 4 $((20 * span)) \
	2>/tmp/asan-dl.err
sanitized dlchurn /tmp/asan-dl.err $?
rm -rf /tmp/dla
grep -q ';lib_spin;lib_inner ' /tmp/asan-dl.folded || fail "dlchurn: no samples in the libraries"
$rec -q -o /tmp/asan-sw.folded -- build/workloads/sandwich $((2 * span)) 2>/tmp/asan-sw.err
sanitized sandwich /tmp/asan-sw.err $?
grep -q 'sandwich.lua:1_\[vm\]' /tmp/asan-sw.folded || fail "sandwich: no Lua frames"
# Named by their callers' calls (LuaJIT's call-site names, under ASan too).
grep -qE ';lua_fib \([^;]*sandwich\.lua:1\)_\[vm\]' /tmp/asan-sw.folded ||
	fail "sandwich: no Lua frame named by its caller"
$rec -q -o /tmp/asan-tt.folded -- tarantool tests/workloads/lua/tarantool_split.lua \
	$((3 * span)) >/dev/null 2>/tmp/asan-tt.err
sanitized tarantool /tmp/asan-tt.err $?
grep -qE 'tarantool_split\.lua:34\)?_\[vm\]' /tmp/asan-tt.folded || fail "tarantool: no Lua frames"
VMSEXT_DIR=build/workloads $rec -q -o /tmp/asan-py.folded -- /usr/bin/python3.11 \
	tests/workloads/python/known.py $((3 * span)) sandwich 2>/tmp/asan-py.err
sanitized python /tmp/asan-py.err $?
grep -q ';inner ([^;]*known.py:[0-9]*)_\[vm\];' /tmp/asan-py.folded || fail "python: no Python frames"
true
