# pprof output checked by an independent reader: go tool pprof (Debian's
# golang-go, on the host's root) must find in vmstack-report's pprof of a
# raw recording the stacks and counts the recorder wrote live, sample for
# sample, and the same total (tests/host/pprof_vs_folded.py compares them):
# native and kernel frames (calltree), LuaJIT's merged in (the sandwich).
# The recorder writes pprof itself too, by -o's suffix.
. tests/guest/lib.sh
# The module sees ordinary recordings of programs other tests record.
release_only "pprof as go tool pprof reads it: user space's" || exit 0
for w in calltree sandwich; do
	vmstack-record -q -F 999 -o /tmp/$w.folded --raw /tmp/$w.raw -- \
		build/workloads/$w $((3 * span)) || fail "record of $w failed"
	vmstack-report -i /tmp/$w.raw -o /tmp/$w.pb.gz || fail "report of $w failed"
	cp /tmp/$w.pb.gz "$VMSTACK_RESULTS/"
	total=$(awk '{s += $NF} END {print s+0}' /tmp/$w.folded)
	note "$w: $total samples"
	[ "$total" -gt 1000 ] || fail "$w: too few samples: $total"
	tests/host/pprof_vs_folded.py /tmp/$w.pb.gz /tmp/$w.folded ||
		fail "$w: go tool pprof does not read the folded stacks"
done
grep -q 'sandwich.lua:1_\[vm\]' /tmp/sandwich.folded || fail "no Lua frames in the sandwich"
go tool pprof -top /tmp/sandwich.pb.gz | head -12
# The recorder's own pprof, with thread labels and a flame graph beside it
# (--svg); the calltree binary's mapping carries its build-id.
vmstack-record -q --per-thread -o /tmp/live.pb.gz --svg /tmp/live.svg -- \
	build/workloads/calltree "$span" || fail "record to .pb.gz failed"
go tool pprof -raw /tmp/live.pb.gz >/tmp/live.txt 2>&1
grep -qx 'samples/count cpu/nanoseconds' /tmp/live.txt ||
	fail "go tool pprof does not read the recorder's pprof"
# A sample's string labels share a line: "comm:[calltree] thread_name:[calltree]".
grep -qE '^ +(.* )?thread_name:\[calltree\]( |$)' /tmp/live.txt || fail "no thread_name label"
grep -qE '^ +comm:\[calltree\]( |$)' /tmp/live.txt || fail "no comm label"
id=$(readelf -n build/workloads/calltree | sed -n 's/.*Build ID: //p')
grep -qE " $(realpath build/workloads/calltree) $id " /tmp/live.txt ||
	fail "no mapping of calltree with build-id $id"
grep -q '<svg' /tmp/live.svg || fail "--svg wrote no flame graph"
true
