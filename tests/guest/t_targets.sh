# Several processes in one session (-p A,B,C): a native program with a
# known call tree, LuaJIT and CPython 3.11, sampled together. Each has its
# own unwind rules and VMs in the module, so each process's stacks must be
# what a recording of it alone shows: complete, rooted at its own
# "comm (PID)" frame, its VM frames merged; calltree's 3:1 split kept. A
# target that exits mid-recording is forgotten (TARGET_DEL) while the
# others go on, and the recorder ends when the last one exits.
. tests/guest/lib.sh
cd "$VMSTACK_REPO" || exit 1
out=/tmp/targets.folded
build/workloads/calltree $((30 * scale)) &
c=$!
luajit -joff tests/workloads/lua/work.lua $((30 * scale)) >/dev/null &
l=$!
/usr/bin/python3.11 tests/workloads/python/known.py $((30 * scale)) split 2>/dev/null &
y=$!
sleep 1
vmstack-record --stats -d $((4 * span)) -o $out -p $c,$l,$y 2>/tmp/targets.err ||
	{ cat /tmp/targets.err; fail "vmstack-record -p $c,$l,$y failed"; }
cat /tmp/targets.err
cp $out /tmp/targets.err "$VMSTACK_RESULTS/"
sort -k2 -nr $out | head -6 | cut -c1-240
total=$(stack_count $out '')
of() { stack_count $out "$1"; }
nc=$(of "^calltree \\($c\\);")
nl=$(of "^luajit \\($l\\);")
ny=$(of "^python3.11 \\($y\\);")
note "samples: all $total, calltree $nc, luajit $nl, python3.11 $ny"
[ $((nc + nl + ny)) -eq "$total" ] || fail "samples not under one of the three roots"
for n in $nc $nl $ny; do
	[ "$n" -gt 300 ] || fail "a target has too few samples ($nc/$nl/$ny)"
done
# calltree: complete stacks, the known split (its unwind rules are its own).
hot=$(of "^calltree \\($c\\);(.*;)?main;run;hot_three;spin(;[^;]*_\\[k\\])* ")
cold=$(of "^calltree \\($c\\);(.*;)?main;run;cold_one;spin(;[^;]*_\\[k\\])* ")
note "calltree: hot=$hot cold=$cold of $nc"
[ $((100 * (hot + cold) / nc)) -ge 90 ] || fail "calltree's known stacks are under 90% of its samples"
split_about "$hot" "$cold" 3 || fail "calltree's hot/cold ratio is not about 3"
# LuaJIT and CPython: their VM frames merged (each process's descriptors).
lj=$(of "^luajit \\($l\\);.*work\\.lua:[0-9]+_\\[vm\\]")
py=$(of "^python3.11 \\($y\\);.*known\\.py:[0-9]+\\)_\\[vm\\]")
heavy=$(of "^python3.11 \\($y\\);.*;heavy \\([^)]*known\\.py:[0-9]+\\)_\\[vm\\]")
# Of the split's rounds: python's start-up (imports) may still run when
# the recording starts (20% of its samples once on the debug kernel).
rounds=$(of "^python3.11 \\($y\\);.*;split_round \\([^)]*known\\.py:[0-9]+\\)_\\[vm\\]")
note "VM frames: luajit $lj of $nl, python3.11 $py of $ny (heavy $heavy of the split's $rounds: 50% by construction)"
[ $((100 * lj / nl)) -ge 90 ] || fail "LuaJIT frames in under 90% of luajit's samples"
[ $((100 * py / ny)) -ge 90 ] || fail "Python frames in under 90% of python3.11's samples"
[ "$rounds" -gt 300 ] || fail "python3.11: too few samples in the split's rounds ($rounds)"
within 8 $((100 * heavy / rounds)) 50 || fail "python3.11's heavy share is not about 50%"
grep -q "VM frames merged:.*luajit ($l).*python3.11 ($y)" /tmp/targets.err ||
	fail "the summary does not name each process's VMs"
# pprof: each sample labelled with its process (pid, comm), as go tool
# pprof reads them.
vmstack-record -d $((2 * span)) -o /tmp/targets.pb.gz -p $c,$l 2>/tmp/pb.err ||
	{ cat /tmp/pb.err; fail "vmstack-record to pprof failed"; }
go tool pprof -raw /tmp/targets.pb.gz >/tmp/targets.raw.txt 2>&1
cp /tmp/targets.pb.gz /tmp/targets.raw.txt /tmp/pb.err "$VMSTACK_RESULTS/"
for want in "comm:\[calltree\]" "comm:\[luajit\]" "pid:\[$c\]" "pid:\[$l\]"; do
	grep -q "$want" /tmp/targets.raw.txt || fail "pprof: no label $want"
done
for t in "$c" "$l"; do
	n=$(go tool pprof -tagfocus=pid=$t -traces /tmp/targets.pb.gz 2>/dev/null | grep -c -- '-----------+')
	note "pprof: $n stacks labelled pid $t"
	[ "$n" -gt 2 ] || fail "pprof: no samples for pid $t"
done
kill $c $l $y 2>/dev/null
wait $c $l $y 2>/dev/null

# The module alone: a busy process joins a sampling session, gets rules
# and a VM, and leaves, round after round (RCU: KASAN in the debug lane).
build/workloads/calltree $((4 * span)) &
c=$!
build/workloads/calltree $((4 * span)) &
o=$!
vmstack-probe targets $c $o $((2 * span)) || fail "targets joining and leaving a session"
wait $c $o 2>/dev/null

# A target that exits: the others are still sampled; the recorder ends
# with the last one (no -d).
build/workloads/calltree $((5 * span)) &
c=$!
luajit -joff tests/workloads/lua/work.lua $((2 * span)) >/dev/null &
l=$!
sleep 0.5
start=$(date +%s)
vmstack-record -o /tmp/exit.folded -p $c,$l 2>/tmp/exit.err ||
	{ cat /tmp/exit.err; fail "vmstack-record with a target exiting failed"; }
took=$(($(date +%s) - start))
cat /tmp/exit.err
lj=$(stack_count /tmp/exit.folded "^luajit \\($l\\);")
ct=$(stack_count /tmp/exit.folded "^calltree \\($c\\);")
note "after luajit exited at ~$((2 * span)) s: calltree $ct, luajit $lj samples; recorder took $took s"
[ "$lj" -gt 100 ] && [ "$ct" -gt $((lj * 3 / 2)) ] ||
	fail "calltree was not sampled on after luajit exited"
[ "$took" -le $((8 * scale)) ] || fail "the recorder did not end with its last target"

# Usage errors: a bad list, and --raw (one process) with several.
vmstack-record -p 1,x -o /dev/null 2>/tmp/u.err
[ $? -eq 2 ] && grep -q "bad PID list" /tmp/u.err || fail "-p 1,x was not a usage error"
vmstack-record -p 1,2 --raw /tmp/x.raw -o /dev/null 2>/tmp/u.err
[ $? -eq 2 ] && grep -q "raw keeps one process" /tmp/u.err || fail "--raw with two PIDs was not refused"

# A session started in a child PID namespace, its descriptor passed out:
# processes without a number there are refused (each was added as 0, and
# the second evicted the first as "the same number, a new process").
vmstack-probe pidns 1 || fail "a process with no number in the session's PID namespace was taken"
true
