# SIGKILL of the recorder ends its session: closing the fd frees it all.
. tests/guest/lib.sh
build/workloads/calltree 6 &
pid=$!
vmstack-record -q -p $pid -o /dev/null &
rec=$!
wait_until 5 sh -c "vmstack status | grep -q '^sessions: 1$'" || fail "session did not start"
kill -9 $rec
wait $rec 2>/dev/null
wait_until 5 sh -c "vmstack status | grep -q '^sessions: 0$'" || fail "session left behind"
kill $pid
wait $pid 2>/dev/null
true
