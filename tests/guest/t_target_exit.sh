# The target exits while recording (no -d): the recorder notices, stops
# and still writes its output. The target is ended once the session has
# sampled it for a second, so that the exit surely falls mid-session (a
# target timed to exit by itself raced the recorder's start).
. tests/guest/lib.sh
build/workloads/calltree $((60 * scale)) &
pid=$!
timeout $((20 * scale)) vmstack-record -q -p $pid -o /tmp/exit.folded 2>/tmp/exit.err &
rec=$!
wait_until 10 sh -c "vmstack status | grep -q '^sessions: 1$'" || fail "session did not start"
sleep $scale
kill $pid
wait $rec
rc=$?
cat /tmp/exit.err
[ $rc = 0 ] || fail "recorder exited $rc"
grep -q ';hot_three;spin ' /tmp/exit.folded || fail "no stacks written"
vmstack status | grep -q '^sessions: 0$' || fail "session left behind"
