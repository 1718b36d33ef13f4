# A raw recording replayed by vmstack-report gives exactly the stacks the
# recorder wrote live, VM frames included; --stats reports the handler's
# own cost.
. tests/guest/lib.sh
vmstack-record -q --stats --raw /tmp/r.raw -o /tmp/live.folded -- build/workloads/calltree 1 2>/tmp/r.err ||
	fail "record failed"
cat /tmp/r.err
grep -qE 'handler: p50 [0-9]+ ns, p99 [0-9]+ ns' /tmp/r.err || fail "no handler cost line"
vmstack-report -i /tmp/r.raw -o /tmp/replay.folded || fail "report failed"
cmp /tmp/live.folded /tmp/replay.folded || fail "replay differs from the live output"
# With VM frames: their names travel in the raw file.
vmstack-record -q --raw /tmp/sw.raw -o /tmp/sw-live.folded -- build/workloads/sandwich 1 ||
	fail "record of the sandwich failed"
vmstack-report -i /tmp/sw.raw -o /tmp/sw-replay.folded || fail "report of the sandwich failed"
grep -q 'sandwich.lua:1_\[vm\]' /tmp/sw-replay.folded || fail "VM frames unnamed in the replay"
cmp /tmp/sw-live.folded /tmp/sw-replay.folded || fail "sandwich replay differs from the live output"
head -c 100 /tmp/r.raw >/tmp/cut.raw
vmstack-report -i /tmp/cut.raw -o /dev/null && fail "a cut file was accepted"
true
