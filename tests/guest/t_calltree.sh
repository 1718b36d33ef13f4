# A workload with a known call tree: hot_three burns 3x the CPU of
# cold_one. The recorded stacks must be complete (rooted at main, under the
# process name) and in that proportion.
. tests/guest/lib.sh
out=/tmp/calltree.folded
vmstack-record -F 999 -o $out -- build/workloads/calltree $((3 * span)) 2>/tmp/rec.err ||
	{ cat /tmp/rec.err; fail "vmstack-record failed"; }
cat /tmp/rec.err
cp $out "$VMSTACK_RESULTS/"
sort -k2 -nr $out | head -8
# An interrupt taken in spin is spin's time too (perf counts it there):
# kernel frames may sit on top of the known stacks.
hot=$(grep -E '^calltree;(.*;)?main;run;hot_three;spin(;[^;]*_\[k\])* ' $out | awk '{s+=$NF} END {print s+0}')
cold=$(grep -E '^calltree;(.*;)?main;run;cold_one;spin(;[^;]*_\[k\])* ' $out | awk '{s+=$NF} END {print s+0}')
total=$(awk '{s+=$NF} END {print s+0}' $out)
note "hot=$hot cold=$cold total=$total"
[ "$total" -gt 1000 ] || fail "too few samples: $total"
# Nearly every sample is in one of the two known stacks.
[ $((100 * (hot + cold) / total)) -ge 90 ] || fail "known stacks are under 90% of samples"
ratio=$(awk -v h=$hot -v c=$cold 'BEGIN {printf "%.2f", h / c}')
note "hot/cold ratio $ratio (expected 3)"
split_about "$hot" "$cold" 3 || fail "ratio $ratio is not about 3"
grep -q " samples, 0 lost " /tmp/rec.err || fail "samples were lost"
