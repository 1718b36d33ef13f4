# User stacks without frame pointers, unwound with rules from .eh_frame:
# the known call tree built -O2 -fomit-frame-pointer gives complete stacks
# in the expected proportions; with --unwind fp the same stacks break.
# The run stretches by span (lib.sh): its start-up is no part of the tree
# and takes longer on the debug kernel (at 3 s there, 89.96% complete).
. tests/guest/lib.sh
w=build/workloads/calltree-nofp
vmstack-record -q --stats -o /tmp/cfi.folded -- $w $((3 * span)) 2>/tmp/cfi.err || { cat /tmp/cfi.err; fail "record failed"; }
cat /tmp/cfi.err
cp /tmp/cfi.folded "$VMSTACK_RESULTS/"
sort -k2 -nr /tmp/cfi.folded | head -4
sum() { grep -E "$1" "$2" | awk '{s += $NF} END {print s+0}'; }
total=$(awk '{s += $NF} END {print s+0}' /tmp/cfi.folded)
# Kernel frames of an interrupt taken in spin may sit on top.
hot=$(sum ';__libc_start_main;[^ ]*;main;run;hot_three;spin(;[^;]*_\[k\])* ' /tmp/cfi.folded)
cold=$(sum ';__libc_start_main;[^ ]*;main;run;cold_one;spin(;[^;]*_\[k\])* ' /tmp/cfi.folded)
# run's own time (its clock_gettime calls: a syscall that takes several
# times longer on the debug kernel) is in the known tree too.
known=$(sum '^[^;]*;_start;__libc_start_main;[^ ]*;main;run[; ]' /tmp/cfi.folded)
note "complete known stacks: $known of $total (hot $hot cold $cold)"
[ $((100 * known / total)) -ge 90 ] || fail "under 90% of samples have the complete known stack"
split_about "$hot" "$cold" 3 || fail "hot/cold is not about 3"
grep -q 'unwind rules: [1-9]' /tmp/cfi.err || fail "no unwind rules uploaded"
vmstack-record -q --unwind fp -o /tmp/fp.folded -- $w 1 || fail "record --unwind fp failed"
fp=$(sum ';main;run;(hot_three|cold_one);spin ' /tmp/fp.folded)
note "with frame pointers only, complete stacks: $fp"
[ "$fp" -lt $((total / 10)) ] || fail "frame pointers alone should not unwind this binary"
