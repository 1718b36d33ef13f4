# A rate above kernel.perf_event_max_sample_rate is held to it at session
# start (perf_event_open() refuses such a rate), and the recorder says so.
. tests/guest/lib.sh
old=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo 500 >/proc/sys/kernel/perf_event_max_sample_rate
vmstack-record -q -F 5000 -o /tmp/clamp.folded -- build/workloads/calltree 2 2>/tmp/clamp.err
rc=$?
echo "$old" >/proc/sys/kernel/perf_event_max_sample_rate
cat /tmp/clamp.err
[ $rc = 0 ] || fail "record failed"
grep -q -- '-F 5000 is above kernel.perf_event_max_sample_rate: sampling at 500 Hz' /tmp/clamp.err ||
	fail "the recorder did not say what rate it got"
n=$(awk '{s += $NF} END {print s+0}' /tmp/clamp.folded)
note "$n samples in 2 s at 500 Hz"
[ "$n" -le 1300 ] || fail "sampled faster than 500 Hz"
[ "$n" -ge 300 ] || fail "too few samples"
# A client that asks for 5000 Hz itself (the module no longer reads the
# sysctl): perf's throttle holds its events to the limit all the same.
build/workloads/calltree $((3 * scale)) &
pid=$!
echo 500 >/proc/sys/kernel/perf_event_max_sample_rate
vmstack-probe hold $pid 2 64 5000 >/tmp/clamp-raw.txt
rc=$?
echo "$old" >/proc/sys/kernel/perf_event_max_sample_rate
kill $pid 2>/dev/null
wait $pid 2>/dev/null
cat /tmp/clamp-raw.txt
[ $rc = 0 ] || fail "the raw session's counters do not add up"
raw=$(sed -n 's/^read [0-9]* written \([0-9]*\)$/\1/p' /tmp/clamp-raw.txt)
note "$raw samples in 2 s asking 5000 Hz with the limit at 500"
[ "${raw:-0}" -le 1300 ] || fail "a client asking more than the limit sampled faster than 500 Hz"
[ "${raw:-0}" -ge 300 ] || fail "too few samples"
