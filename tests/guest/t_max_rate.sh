# Deep recursion (thousands of frames) at the highest rate: stacks stop at
# the depth cap and are counted as truncated; the kernel stays healthy.
# tests/guest/run runs it last (its "last" list).
. tests/guest/lib.sh
# At 100 kHz the kernel may lower its rate limit: put it back, so the
# test leaves the kernel's limit as it found it whatever runs after it.
rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
trap 'echo "$rate0" >/proc/sys/kernel/perf_event_max_sample_rate' EXIT
vmstack-record -q --stats -F 100000 --max-depth 512 -o /tmp/deep.folded -- build/workloads/deep 3000 2 2>/tmp/deep.err ||
	{ cat /tmp/deep.err; fail "record failed"; }
cat /tmp/deep.err
grep -qE 'by --max-depth' /tmp/deep.err || fail "no truncation reported"
# The cap holds for the user and the kernel part each.
n=$(awk -F';' '{u = 0; for (i = 2; i <= NF; i++) if ($i !~ /_\[k\]/) u++; print u}' /tmp/deep.folded | sort -n | tail -1)
note "deepest user stack: $n frames"
[ "$n" -le 512 ] || fail "a user stack beyond the cap"
dmesg | grep 'perf: interrupt took too long' && note "(at 100 kHz the kernel lowered its rate: informational)"
true
