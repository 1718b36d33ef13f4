# Where programs wait (--off-cpu, ABI 4.4): the stack at each switch-out,
# weighed by the time until the thread runs again. The reference is the
# program itself: build/workloads/waiter's Lua handler calls slow_io
# (30 ms asleep) and fast_io (10 ms) in turn, so 3/4 of its time off CPU
# is under slow_io and 1/4 under fast_io, each below waiter.lua's handle
# and above the kernel's schedule. Both a command and a running process
# (-p).
. tests/guest/lib.sh
secs=$((3 * span))

# check NAME FILE SECS [LUA%]: FILE's split, stacks and total against the
# known ones (the workload serves requests for SECS seconds, a thread of
# them almost all off CPU); LUA% of the waits (default 95) with the Lua
# frame (-a: the records before the recorder described the process are
# walked with frame pointers only, without VM frames).
check() {
	local name=$1 f=$2 wall=$3 lua_min=${4:-95} all slow fast lua sched total share
	all=$(stack_count "$f" '')
	slow=$(stack_count "$f" ';slow_io;')
	fast=$(stack_count "$f" ';fast_io;')
	lua=$(stack_count "$f" 'waiter\.lua[^;]*_\[vm\];(slow|fast)_io;')
	sched=$(stack_count "$f" ';(slow|fast)_io;.*;schedule_\[k\]')
	share=$(awk -v s="$slow" -v f="$fast" 'BEGIN {printf "%.1f", s + f ? 100 * s / (s + f) : 0}')
	total=$(awk -v a="$all" -v w="$wall" 'BEGIN {printf "%.0f", 100 * a / (w * 1e6)}')
	note "$name: $all us off CPU ($total% of the $wall s served), slow_io $slow, fast_io $fast: slow's share $share% (known 75%); below waiter.lua's handle $lua, above schedule $sched"
	grep -E ';(slow|fast)_io;' "$f" | sort -t' ' -k2 -nr | head -2
	awk -v s="$share" 'BEGIN {exit !(s >= 70 && s <= 80)}' ||
		fail "$name: slow_io's share of the wait is $share%, not 75 +- 5"
	[ $((slow + fast)) -ge $((all * 90 / 100)) ] ||
		fail "$name: only $((slow + fast)) of $all us are under slow_io or fast_io"
	[ "$lua" -ge $(((slow + fast) * lua_min / 100)) ] ||
		fail "$name: waits without the Lua frame between: $lua of $((slow + fast))"
	[ "$sched" -ge $(((slow + fast) * 95 / 100)) ] ||
		fail "$name: waits without the kernel's schedule at the leaf: $sched of $((slow + fast))"
	# One thread, almost always asleep: its waits fill most of the wall time.
	[ "$total" -ge 70 ] && [ "$total" -le 105 ] ||
		fail "$name: off-CPU time is $total% of the $wall s served, not 70-105%"
}

vmstack-record --off-cpu -o /tmp/oc.cmd.folded --svg /tmp/oc.cmd.svg -- \
	build/workloads/waiter $secs 2>/tmp/oc.cmd.err || { cat /tmp/oc.cmd.err; fail "vmstack-record --off-cpu failed"; }
cat /tmp/oc.cmd.err
grep -q 'off CPU: [0-9]* switch-outs' /tmp/oc.cmd.err || fail "no off-CPU line in the summary"
check command /tmp/oc.cmd.folded $secs
grep -q 'off-CPU time: where threads waited' /tmp/oc.cmd.svg || fail "the SVG does not say it shows off-CPU time"

# Its run outlasts three recordings and their attaches (seconds each on
# the debug kernel).
build/workloads/waiter $((3 * secs + 20)) &
pid=$!
sleep 0.5
vmstack-record --off-cpu -d $secs -p $pid -o /tmp/oc.pid.pb.gz 2>/tmp/oc.pid.err ||
	{ cat /tmp/oc.pid.err; fail "vmstack-record --off-cpu -p failed"; }
vmstack-record --off-cpu -d $secs -p $pid -o /tmp/oc.pid.folded 2>/tmp/oc.pid2.err ||
	{ cat /tmp/oc.pid2.err; fail "vmstack-record --off-cpu -p failed"; }
cat /tmp/oc.pid2.err
# The whole machine (one event per CPU): the waiter's split among its
# stacks (root "waiter (PID)"), and no idle task's.
vmstack-record --off-cpu -a -d $secs -o /tmp/oc.all.folded 2>/tmp/oc.all.err ||
	{ cat /tmp/oc.all.err; fail "vmstack-record --off-cpu -a failed"; }
cat /tmp/oc.all.err
kill $pid
wait $pid
check -p /tmp/oc.pid.folded $secs
grep "^waiter ($pid);" /tmp/oc.all.folded | sed 's/^waiter ([0-9]*)/waiter/' >/tmp/oc.allw.folded
check -a /tmp/oc.allw.folded $secs 85
# The idle tasks' switch-outs, were they recorded, would be records
# without a thread ID (idle is tid 0), thousands a second: "not weighed".
sw=$(sed -nE 's/.*off CPU: ([0-9]+) switch-outs.*/\1/p' /tmp/oc.all.err)
unw=$(sed -nE 's/.* ([0-9]+) not weighed.*/\1/p' /tmp/oc.all.err)
note "-a: $(stack_count /tmp/oc.all.folded '') us off CPU in all; $sw switch-outs, ${unw:-0} without a thread ID"
[ "${unw:-0}" -le $((sw / 100)) ] || fail "-a: ${unw} of $sw switch-outs without a thread ID (the idle task's?)"

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

# Tarantool, a fiber sleeping 20 ms at a time (fiber_sleep.lua): its
# thread waits in the event loop (ev_run, epoll_wait), where the fiber
# scheduler blocks; the fiber's own frames are on its own stack, not the
# thread's (a fiber's wait would need its yields, which no switch-out
# shows). Of the main thread's time off CPU, 90% must be in epoll_wait
# below ev_run.
release_only "tarantool's fiber wait" && {
	(cd /tmp && exec tarantool "$VMSTACK_REPO/tests/workloads/lua/fiber_sleep.lua" \
		$((secs * 20)) >/tmp/oc.tt.out 2>&1) &
	pid=$!
	wait_until 30 grep -qs running /tmp/oc.tt.out || fail "tarantool's script did not start"
	vmstack-record --off-cpu --per-thread -p $pid -d $secs -o /tmp/oc.tt.folded 2>/tmp/oc.tt.err
	rc=$?
	kill $pid
	wait $pid
	cat /tmp/oc.tt.err
	[ $rc = 0 ] || fail "vmstack-record --off-cpu exited $rc on tarantool"
	main=$(stack_count /tmp/oc.tt.folded "^[^;]*/$pid;")
	loop=$(stack_count /tmp/oc.tt.folded "^[^;]*/$pid;.*;ev_run;.*;epoll_wait;")
	lua=$(stack_count /tmp/oc.tt.folded "^[^;]*/$pid;.*_\\[vm\\]")
	note "tarantool: main thread $main us off CPU, $loop in epoll_wait below ev_run, $lua with Lua frames"
	grep "^[^;]*/$pid;" /tmp/oc.tt.folded | sort -t' ' -k2 -nr | head -2 | cut -c1-600
	[ "$main" -gt $((secs * 500000)) ] || fail "tarantool: the main thread's wait is $main us in $secs s"
	[ "$loop" -ge $((main * 90 / 100)) ] || fail "tarantool: only $loop of $main us in the event loop's epoll_wait"
}

# Threads that switch fast and move between CPUs (pingpong: two threads
# passing a byte, a switch-out each pass): their records reach the
# recorder out of order, across drains too; each record's wait is shown,
# short, a gap (a switch-out between dropped: no more than were dropped)
# or left by a thread that exited, and none is left unpaired.
vmstack-record --off-cpu -o /tmp/oc.pp.folded -- build/workloads/pingpong 20000 \
	2>/tmp/oc.pp.err >/dev/null || { cat /tmp/oc.pp.err; fail "vmstack-record --off-cpu of pingpong failed"; }
cat /tmp/oc.pp.err
field() { sed -nE "s/.*[ (]([0-9]+) $1.*/\1/p" /tmp/oc.pp.err | head -1; }
sw=$(field 'switch-outs'); shown=$(field 'waits shown'); short=$(field 'shorter than')
gaps=$(field 'not shown'); open=$(field 'still waiting'); gone=$(field 'whose end')
unpaired=$(field 'not weighed'); dropped=$(sed -nE 's/.* ([0-9]+) lost \(.*/\1/p' /tmp/oc.pp.err | head -1)
note "pingpong: $sw switch-outs: $shown shown, ${short:-0} short, ${gaps:-0} gaps, ${open:-0} open, ${gone:-0} ended, ${unpaired:-0} unpaired; ${dropped:-0} dropped"
[ "${unpaired:-0}" = 0 ] || fail "pingpong: ${unpaired} switch-outs not paired"
# (A wait under way at the end is shown or short, weighed to it.)
[ $((shown + ${short:-0} + ${gaps:-0} + ${gone:-0})) = "$sw" ] ||
	fail "pingpong: the waits do not add up to the switch-outs"
[ "${gaps:-0}" -le "${dropped:-0}" ] || fail "pingpong: ${gaps} gaps, but only ${dropped:-0} switch-outs dropped"
# A pass need not block both threads (a read may find its byte there
# already, with both on CPUs): 39,993 once. Most do.
[ $((sw + ${dropped:-0})) -ge 36000 ] || fail "pingpong: $sw switch-outs recorded and ${dropped:-0} dropped, of about 40,000"

# CPU sampling of the whole machine still shows idle CPUs (the idle
# task is left out of switch-outs only).
vmstack-record -q -a -F 199 -d 1 -o /tmp/oc.cpu.folded || fail "vmstack-record -a failed"
[ "$(stack_count /tmp/oc.cpu.folded '^swapper')" -gt 0 ] || fail "-a: no idle samples"

# Bad input: a clear error, no recording.
vmstack-record --off-cpu -e cycles -d 1 -p $$ >/dev/null 2>/tmp/oc.bad.err && fail "--off-cpu -e was taken"
grep -q "not with -e or -F" /tmp/oc.bad.err || { cat /tmp/oc.bad.err; fail "no clear error for --off-cpu -e"; }
vmstack-record --off-cpu -F 99 -d 1 -p $$ >/dev/null 2>/tmp/oc.bad.err && fail "--off-cpu -F was taken"
grep -q "not with -e or -F" /tmp/oc.bad.err || { cat /tmp/oc.bad.err; fail "no clear error for --off-cpu -F"; }
exit 0
