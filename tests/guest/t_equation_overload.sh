# Nothing lost silently: with a tiny ring that nobody reads, samples are
# dropped and counted, and for every CPU taken == written + dropped. With a
# reader, everything written is read.
. tests/guest/lib.sh
build/workloads/calltree $((6 * scale)) &
pid=$!
sleep 0.2
vmstack-probe hold $pid 1.5 4 10000 nodrain >/tmp/p1.txt || { cat /tmp/p1.txt; fail "equation broken without a reader"; }
cat /tmp/p1.txt
dropped=$(awk '/^cpu/ {s += $8} END {print s+0}' /tmp/p1.txt)
[ "$dropped" -gt 0 ] || fail "an unread 4-page ring dropped nothing"
vmstack-probe hold $pid 1.5 64 10000 drain >/tmp/p2.txt || { cat /tmp/p2.txt; fail "equation broken with a reader"; }
cat /tmp/p2.txt
kill $pid
wait $pid 2>/dev/null
true
