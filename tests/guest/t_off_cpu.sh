# Where programs wait (--off-cpu, ABI 4.4): the stack at each switch-out,
# weighed by the time until the thread runs again. The reference is the
# program itself: build/workloads/waiter's Lua handler calls slow_io
# (30 ms asleep) and fast_io (10 ms) in turn, so 3/4 of its time off CPU
# is under slow_io and 1/4 under fast_io, each below waiter.lua's handle
# and above the kernel's schedule. Both a command and a running process
# (-p).
. tests/guest/lib.sh
secs=$((3 * span))

# check NAME FILE WALL: FILE's split, stacks and total against the known ones.
check() {
	local name=$1 f=$2 wall=$3 all slow fast lua sched total share
	all=$(stack_count "$f" '')
	slow=$(stack_count "$f" ';slow_io;')
	fast=$(stack_count "$f" ';fast_io;')
	lua=$(stack_count "$f" 'waiter\.lua[^;]*_\[vm\];(slow|fast)_io;')
	sched=$(stack_count "$f" ';(slow|fast)_io;.*;schedule_\[k\]')
	share=$(awk -v s="$slow" -v f="$fast" 'BEGIN {printf "%.1f", s + f ? 100 * s / (s + f) : 0}')
	total=$(awk -v a="$all" -v w="$wall" 'BEGIN {printf "%.0f", 100 * a / (w * 1e6)}')
	note "$name: $all us off CPU ($total% of the wall time), slow_io $slow, fast_io $fast: slow's share $share% (known 75%); below waiter.lua's handle $lua, above schedule $sched"
	grep -E ';(slow|fast)_io;' "$f" | sort -t' ' -k2 -nr | head -2
	awk -v s="$share" 'BEGIN {exit !(s >= 70 && s <= 80)}' ||
		fail "$name: slow_io's share of the wait is $share%, not 75 +- 5"
	[ $((slow + fast)) -ge $((all * 90 / 100)) ] ||
		fail "$name: only $((slow + fast)) of $all us are under slow_io or fast_io"
	[ "$lua" -ge $(((slow + fast) * 95 / 100)) ] ||
		fail "$name: waits without the Lua frame between: $lua of $((slow + fast))"
	[ "$sched" -ge $(((slow + fast) * 95 / 100)) ] ||
		fail "$name: waits without the kernel's schedule at the leaf: $sched of $((slow + fast))"
	# One thread, almost always asleep: its waits fill most of the wall time.
	[ "$total" -ge 70 ] && [ "$total" -le 105 ] ||
		fail "$name: off-CPU time is $total% of the wall time, not 70-105%"
}

t0=$(date +%s.%N)
vmstack-record --off-cpu -o /tmp/oc.cmd.folded --svg /tmp/oc.cmd.svg -- \
	build/workloads/waiter $secs 2>/tmp/oc.cmd.err || { cat /tmp/oc.cmd.err; fail "vmstack-record --off-cpu failed"; }
t1=$(date +%s.%N)
cat /tmp/oc.cmd.err
grep -q 'off CPU: [0-9]* switch-outs' /tmp/oc.cmd.err || fail "no off-CPU line in the summary"
check command /tmp/oc.cmd.folded "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')"
grep -q 'off-CPU time: where threads waited' /tmp/oc.cmd.svg || fail "the SVG does not say it shows off-CPU time"

build/workloads/waiter $((2 * secs + 4)) &
pid=$!
sleep 0.5
vmstack-record --off-cpu -d $secs -p $pid -o /tmp/oc.pid.pb.gz 2>/tmp/oc.pid.err ||
	{ cat /tmp/oc.pid.err; fail "vmstack-record --off-cpu -p failed"; }
vmstack-record --off-cpu -d $secs -p $pid -o /tmp/oc.pid.folded 2>/tmp/oc.pid2.err ||
	{ cat /tmp/oc.pid2.err; fail "vmstack-record --off-cpu -p failed"; }
cat /tmp/oc.pid2.err
wait $pid
check -p /tmp/oc.pid.folded $secs
# The pprof file as an independent reader sees it: off-CPU nanoseconds,
# and the same split.
go tool pprof -raw /tmp/oc.pid.pb.gz >/tmp/oc.pid.raw 2>&1
grep -qx 'off-cpu/nanoseconds' /tmp/oc.pid.raw || { head /tmp/oc.pid.raw; fail "go tool pprof does not read an off-cpu/nanoseconds profile"; }
go tool pprof -top -show 'slow_io|fast_io' /tmp/oc.pid.pb.gz 2>/dev/null | grep -E 'slow_io|fast_io|total'

# Python 3.11's threads (tests/workloads/python/waits.py): four threads,
# each blocked almost all the time in its own way (time.sleep, select, a
# lock another thread holds, sleeping with the lock), so each function
# holds about a quarter of the time off CPU, below its Python frame.
vmstack-record --off-cpu -o /tmp/oc.py.folded -- /usr/bin/python3.11 \
	tests/workloads/python/waits.py $secs 2>/tmp/oc.py.err || { cat /tmp/oc.py.err; fail "vmstack-record --off-cpu of python failed"; }
cat /tmp/oc.py.err
all=$(stack_count /tmp/oc.py.folded '')
for fn in sleeper selector locker holder; do
	n=$(stack_count /tmp/oc.py.folded ";$fn \\([^;]*waits\\.py:[0-9]+\\)_\\[vm\\];")
	k=$(stack_count /tmp/oc.py.folded ";$fn \\([^;]*waits\\.py:[0-9]+\\)_\\[vm\\];.*;schedule_\\[k\\]")
	sh=$(awk -v n="$n" -v a="$all" 'BEGIN {printf "%.1f", a ? 100 * n / a : 0}')
	note "python: $fn $n us of $all ($sh%, known 25%), $k of them above schedule"
	grep -E ";$fn \\(" /tmp/oc.py.folded | sort -t' ' -k2 -nr | head -1 | cut -c1-700
	awk -v s="$sh" 'BEGIN {exit !(s >= 20 && s <= 30)}' ||
		fail "python: $fn's share of the wait is $sh%, not 25 +- 5"
	[ "$k" -ge $((n * 95 / 100)) ] || fail "python: $fn's waits lack the kernel's schedule"
done

# Bad input: a clear error, no recording.
vmstack-record --off-cpu -e cycles -d 1 -p $$ >/dev/null 2>/tmp/oc.bad.err && fail "--off-cpu -e was taken"
grep -q 'not with -e' /tmp/oc.bad.err || { cat /tmp/oc.bad.err; fail "no clear error for --off-cpu -e"; }
exit 0
