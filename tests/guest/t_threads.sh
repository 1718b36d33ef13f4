# Threads created after the session started are sampled: the workload
# waits 1 s, then starts 3 threads.
. tests/guest/lib.sh
build/workloads/threads $scale 2 &
pid=$!
sleep 0.3
vmstack-record -q -p $pid -o /tmp/threads.folded --per-thread || fail "vmstack-record failed"
wait $pid
head -5 /tmp/threads.folded
n=$(grep -E ';thread_worker;thread_spin ' /tmp/threads.folded | awk '{s += $NF} END {print s+0}')
tids=$(grep -E ';thread_worker;' /tmp/threads.folded | cut -d';' -f1 | sort -u | wc -l)
note "samples in thread_worker: $n, threads seen: $tids"
[ "$n" -gt 500 ] || fail "threads started after attach were not sampled"
[ "$tids" -eq 3 ] || fail "expected 3 worker threads, saw $tids"
