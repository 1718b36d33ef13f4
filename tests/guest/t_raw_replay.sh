# A raw recording replayed by vmstack-report gives exactly the stacks the
# recorder wrote live; --stats reports the handler's own cost.
. tests/guest/lib.sh
vmstack-record -q --stats --raw /tmp/r.raw -o /tmp/live.folded -- build/workloads/calltree 1 2>/tmp/r.err ||
	fail "record failed"
cat /tmp/r.err
grep -qE 'handler: p50 [0-9]+ ns, p99 [0-9]+ ns' /tmp/r.err || fail "no handler cost line"
vmstack-report -i /tmp/r.raw -o /tmp/replay.folded || fail "report failed"
cmp /tmp/live.folded /tmp/replay.folded || fail "replay differs from the live output"
head -c 100 /tmp/r.raw >/tmp/cut.raw
vmstack-report -i /tmp/cut.raw -o /dev/null && fail "a cut file was accepted"
true
