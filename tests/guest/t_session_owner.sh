# Only the holder of a session's descriptor can use it: another process
# (root, every capability) names descriptors of its own table in every
# command, and none is taken; the holder's session goes on unharmed. A
# forked child does not get the rings' mapping, and its exit stops
# nothing; the holder closing its descriptor stops sampling at once, the
# mapped rings staying readable.
. tests/guest/lib.sh
build/workloads/calltree $((8 * scale)) &
pid=$!
vmstack-probe hold $pid $((4 * scale)) >/tmp/holder.txt &
holder=$!
sleep 0.5
vmstack-probe intrude 2 || fail "another process used a session it does not hold"
wait $holder || { cat /tmp/holder.txt; fail "the holder's session was harmed"; }
cat /tmp/holder.txt
written=$(sed -n 's/^read \([0-9]*\) written \([0-9]*\)$/\2/p' /tmp/holder.txt)
[ "${written:-0}" -gt 1000 ] || fail "the holder's session stopped sampling"
vmstack-probe forkcheck $pid || fail "fork"
kill $pid
wait $pid 2>/dev/null
true
