# The target exits while recording (no -d): the recorder notices, stops
# and still writes its output.
. tests/guest/lib.sh
build/workloads/calltree $(awk -v s=$scale "BEGIN {print 1.5 * s}") &
pid=$!
timeout $((20 * scale)) vmstack-record -q -p $pid -o /tmp/exit.folded 2>/tmp/exit.err
rc=$?
cat /tmp/exit.err
[ $rc = 0 ] || fail "recorder exited $rc"
grep -q ';hot_three;spin ' /tmp/exit.folded || fail "no stacks written"
vmstack status | grep -q '^sessions: 0$' || fail "session left behind"
