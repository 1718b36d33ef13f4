# Side by side with perf record -g: same workload, same frequency, same
# boot. Both must agree on the top stacks (user frames from main down) and
# on their proportion.
. tests/guest/lib.sh
w=build/workloads/calltree
vmstack-record -q -F 999 --no-kernel -o /tmp/vm.folded -- $w 3 || fail "vmstack-record failed"
perf record --no-buildid -q -g -F 999 -o /tmp/perf.data -- $w 3 >/dev/null 2>&1 ||
	fail "perf record failed"
perf script -i /tmp/perf.data -F comm,ip,sym 2>/dev/null |
	awk -f tests/guest/perf-collapse.awk >/tmp/perf.folded
# From main down, counts summed, top 2.
top() {
	sed -n 's/^.*;\(main;[^ ]*\) \([0-9]*\)$/\1 \2/p' "$1" |
		awk '{c[$1] += $2} END {for (s in c) print c[s], s}' | sort -nr | head -2
}
top /tmp/vm.folded >/tmp/vm.top
top /tmp/perf.folded >/tmp/perf.top
note "vmstack:"; cat /tmp/vm.top
note "perf:"; cat /tmp/perf.top
[ -s /tmp/perf.top ] || fail "perf gave no stacks"
diff <(awk '{print $2}' /tmp/vm.top) <(awk '{print $2}' /tmp/perf.top) ||
	fail "top stacks differ"
ratio() { awk 'NR == 1 {a = $1} NR == 2 {b = $1} END {printf "%.2f", a / b}' "$1"; }
vr=$(ratio /tmp/vm.top)
pr=$(ratio /tmp/perf.top)
note "ratio of the top two: vmstack $vr, perf $pr"
awk -v a=$vr -v b=$pr 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d / b < 0.25)}' ||
	fail "proportions differ by more than 25%"
