# At the default rate, deep stacks cost so little that the kernel never
# complains that perf interrupts take too long, nor lowers its rate.
. tests/guest/lib.sh
before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
n0=$(dmesg | grep -c 'perf: interrupt took too long')
vmstack-record -q -o /dev/null -- build/workloads/deep 3000 3 || fail "record failed"
after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
n1=$(dmesg | grep -c 'perf: interrupt took too long')
note "perf_event_max_sample_rate $before -> $after; complaints $n0 -> $n1"
[ "$n1" = "$n0" ] || fail "the kernel complained about interrupt time"
[ "$after" = "$before" ] || fail "the kernel lowered perf_event_max_sample_rate"
