# Debian's stripped lua5.4 and python3.11 (no frame pointers): the share of
# samples whose stack reaches the C library's start of main
# (__libc_start_call_main, which perf's DWARF unwinder names and ours does
# not, or __libc_start_main above it, which ours reaches), for vmstack
# (.eh_frame rules), perf --call-graph dwarf and perf -g, in the same boot.
# Samples in the dynamic loader count as not reaching it, for both. vmstack
# must reach at least perf dwarf's share, within 5 points of run-to-run noise.
# The commands run directly, not through "sh -c exec": after an exec the
# recorder needs a moment (about a second under TCG for python3.11) to build
# and upload the new program's tables, and the test measures unwinding, not
# that delay (Documentation/design.md, "User unwinding").
. tests/guest/lib.sh
lua=(lua5.4 -e "local function f(n) if n < 2 then return n end return f(n-1) + f(n-2) end local t = os.clock() while os.clock() - t < 2 do f(18) end")
py=(python3.11 -c "import time
t = time.time()
while time.time() - t < 2: sum(i * i for i in range(1000))")
share() {  # folded file -> percent of samples that reach main's caller
	awk '{n = $NF; t += n; if ($0 ~ /;__libc_start_(call_)?main;/) r += n}
	     END {printf "%.1f", t ? 100 * r / t : 0}' "$1"
}
for name in lua py; do
	declare -n cmd=$name
	vmstack-record -q -F 999 -o /tmp/$name.vm.folded -- "${cmd[@]}" || fail "vmstack on $name"
	perf record --no-buildid -q --call-graph dwarf -F 999 -o /tmp/$name.dwarf.data -- "${cmd[@]}" >/dev/null 2>&1 || fail "perf dwarf on $name"
	perf record --no-buildid -q -g -F 999 -o /tmp/$name.fp.data -- "${cmd[@]}" >/dev/null 2>&1 || fail "perf -g on $name"
	for k in dwarf fp; do
		perf script -i /tmp/$name.$k.data -F comm,ip,sym 2>/dev/null |
			awk -f tests/guest/perf-collapse.awk >/tmp/$name.$k.folded
	done
	cp /tmp/$name.*.folded "$VMSTACK_RESULTS/" 2>/dev/null
	v=$(share /tmp/$name.vm.folded); d=$(share /tmp/$name.dwarf.folded); f=$(share /tmp/$name.fp.folded)
	note "$name: reaching main's caller: vmstack $v%, perf dwarf $d%, perf -g $f%"
	note "sizes: perf dwarf $(stat -c %s /tmp/$name.dwarf.data) bytes, perf -g $(stat -c %s /tmp/$name.fp.data) bytes"
	awk -v v=$v -v d=$d 'BEGIN {exit !(v >= d - 5)}' || fail "$name: vmstack reaches main less often than perf dwarf"
done
