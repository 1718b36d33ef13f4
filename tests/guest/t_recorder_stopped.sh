# A recorder stopped with SIGSTOP lets its rings fill: samples are dropped,
# and once it runs again it reports the loss and warns.
. tests/guest/lib.sh
build/workloads/calltree $((8 * scale)) &
pid=$!
vmstack-record -q -F 5000 --ring-pages 4 -d $((5 * scale)) -p $pid -o /tmp/stop.folded 2>/tmp/stop.err &
rec=$!
# Past its start-up (the target's unwind rules go in before sampling).
sleep $((2 * scale))
kill -STOP $rec
sleep 1.5
kill -CONT $rec
wait $rec || fail "recorder failed"
cat /tmp/stop.err
grep -qE '[1-9][0-9]* lost' /tmp/stop.err || fail "no loss reported"
grep -q 'warning: .*lost' /tmp/stop.err || fail "no warning"
kill $pid
wait $pid 2>/dev/null
true
