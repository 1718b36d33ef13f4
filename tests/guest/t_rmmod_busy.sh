# rmmod while a session runs is refused (EBUSY) and harms nothing; once the
# recorder is gone the module unloads and loads again.
. tests/guest/lib.sh
build/workloads/calltree $((4 * scale)) &
pid=$!
vmstack-record -q -p $pid -o /tmp/busy.folded &
rec=$!
wait_until 5 sh -c "vmstack status | grep -q '^sessions: 1$'" || fail "session did not start"
out=$(rmmod vmstack 2>&1) && fail "rmmod succeeded during a session"
echo "rmmod: $out"
echo "$out" | grep -qi "in use\|busy" || fail "rmmod failed for another reason"
wait $rec || fail "recorder failed after the rmmod attempt"
grep -q ';spin ' /tmp/busy.folded || fail "no samples"
rmmod vmstack || fail "rmmod after the session failed"
insmod "$VMSTACK_KO" || fail "reload failed"
wait $pid 2>/dev/null
true
