# The target exits while recording (no -d): the recorder notices, stops
# and still writes its output.
. tests/guest/lib.sh
build/workloads/calltree 1.5 &
pid=$!
timeout 20 vmstack-record -q -p $pid -o /tmp/exit.folded 2>/tmp/exit.err
rc=$?
cat /tmp/exit.err
[ $rc = 0 ] || fail "recorder exited $rc"
grep -q ';hot_three;spin ' /tmp/exit.folded || fail "no stacks written"
vmstack status | grep -q '^sessions: 0$' || fail "session left behind"
