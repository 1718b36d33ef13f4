# CPython 3.12 and 3.13 run with -X perf (as PYTHONPERFSUPPORT=1 turns on,
# and container images set): every Python call goes through a stub the
# interpreter copies into anonymous memory, which has no unwind rules and,
# in these builds, no frame pointer. The recorder computes the stub's
# rules from libpython's own copy of it and gives them to the module for
# each arena: the same script's stacks are as rooted with -X perf as
# without, and the stubs' names from /tmp/perf-PID.map (py::FUNC:FILE)
# show the Python calls in order.
. tests/guest/lib.sh
cat >/tmp/xperf.py <<'PY'
import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(n):
    return leaf(n)
def top(secs):
    end = time.time() + secs
    while time.time() < end:
        mid(20000)
top(float(sys.argv[1]))
PY
# rooted_py FOLDED: of the samples in the script's Python frames, the
# share (whole percent) rooted at python's _start.
rooted_py() {
	local py_frame='\(/tmp/xperf\.py:[0-9]+\)_\[vm\]'
	awk -v a="$(stack_count "$1" "^python$v;_start;.*$py_frame")" \
		-v b="$(stack_count "$1" "$py_frame")" 'BEGIN {printf "%d", b ? 100 * a / b : 0}'
}
for v in 3.12 3.13; do
	py=$(ls /root/.pyenv/versions/$v.*/bin/python$v 2>/dev/null | head -1)
	[ -n "$py" ] || fail "no pyenv CPython $v here (scripts/setup provides the pyenv builds)"
	for mode in plain perf; do
		args=
		[ $mode = perf ] && args="-X perf"
		vmstack-record -q -F 499 -o /tmp/xp-$v-$mode.folded -- $py $args /tmp/xperf.py $((2 * span)) \
			2>/tmp/xp-$v-$mode.err || { cat /tmp/xp-$v-$mode.err; fail "$v $mode: record failed"; }
	done
	f=/tmp/xp-$v-perf.folded
	# Of the samples in the script's Python code: the loader's start-up,
	# 1-8% of the samples from run to run (t_unwind_stripped), is no part
	# of what -X perf changes.
	rp=$(rooted_py /tmp/xp-$v-plain.folded)
	rx=$(rooted_py $f)
	# Of the samples in leaf (through its stub), those with top's and mid's
	# stubs above it, rooted: the calls in order, nothing cut between.
	nleaf=$(stack_count $f ";py::leaf:/tmp/xperf\\.py;")
	chain=$(stack_count $f "^python$v;_start;.*;py::top:/tmp/xperf\\.py;.*;py::mid:/tmp/xperf\\.py;.*;py::leaf:/tmp/xperf\\.py;")
	note "CPython $v: of the samples in Python code, rooted at _start $rp% without -X perf, $rx% with it; of $nleaf samples in leaf, under _start, top and mid in order: $chain"
	# Release: 100% and 99-100% (88-90% and 91-93% with the start-up counted).
	[ "$rx" -ge $((rp - 3)) ] && [ "$rx" -ge 95 ] || fail "$v: -X perf's stacks end at the stubs"
	[ "$nleaf" -ge 200 ] && [ $((100 * chain / nleaf)) -ge 90 ] ||
		fail "$v: the stubs' Python calls not in order under _start"
done
