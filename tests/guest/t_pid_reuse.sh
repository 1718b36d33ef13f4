# A session is bound to the process, not its number: a new process that
# gets the same PID is never sampled.
. tests/guest/lib.sh
sleep 30 &
old=$!
vmstack-probe hold $old 3 64 999 drain >/tmp/reuse.txt &
probe=$!
# The session must exist before the PID changes hands (under load the
# probe took longer than a fixed wait, and sampled the new process).
wait_until 30 grep -qs '^started' /tmp/reuse.txt || fail "the probe did not start a session"
kill $old
wait $old 2>/dev/null
# The next process created gets the old number.
echo $((old - 1)) >/proc/sys/kernel/ns_last_pid
build/workloads/calltree 1.5 &
new=$!
note "old pid $old, new pid $new"
[ "$new" = "$old" ] || fail "could not reuse the PID (got $new)"
wait $probe || { cat /tmp/reuse.txt; fail "probe failed"; }
cat /tmp/reuse.txt
wait $new
# The old process's own exit may be sampled a few times (up to 55 seen
# with the host loaded by other guests: task clock runs while the vCPU
# waits for the host); the new one would give ~1500 samples (1.5 s at
# 999 Hz).
written=$(sed -n 's/^read \([0-9]*\) written \([0-9]*\)$/\2/p' /tmp/reuse.txt)
[ "$written" -lt 300 ] || fail "the new process was sampled ($written samples)"
