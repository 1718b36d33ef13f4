# CPython 3.12 and 3.13 run with -X perf (as PYTHONPERFSUPPORT=1 turns on,
# and container images set): every Python call goes through a stub the
# interpreter copies into anonymous memory, which has no unwind rules and,
# in these builds, no frame pointer. The recorder computes the stub's
# rules from libpython's own copy of it and gives them to the module for
# each arena: the same script's stacks are as rooted with -X perf as
# without. The stubs are named from /tmp/perf-PID.map (py::FUNC:FILE), and
# shown only where no merged Python frame stands for them: the same
# script's Python stacks with -X perf as without it.
. tests/guest/lib.sh
cat >/tmp/xperf.py <<'PY'
import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(n):
    s = 0
    for i in range(n // 2):
        s += i
    return leaf(n) + s
def top(secs):
    end = time.time() + secs
    while time.time() < end:
        s = 0
        for i in range(10000):
            s += i
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
# pyf FUNC: the ERE of FUNC's merged frame in the script.
pyf() { echo "$1 \\(/tmp/xperf\\.py:[0-9]+\\)_\\[vm\\]"; }
# py_chains FOLDED: "CHAIN SHARE" per chain of the script's Python
# functions (top>mid>leaf), its share of the samples in them to a tenth,
# sorted by chain.
py_chains() {
	awk '{n = $NF; sub(/ [0-9]+$/, ""); k = split($0, a, ";"); c = ""
		for (i = 1; i <= k; i++)
			if (a[i] ~ /\(\/tmp\/xperf\.py:[0-9]+\)_\[vm\]$/) {
				sub(/ \(.*/, "", a[i]); c = c (c == "" ? "" : ">") a[i]
			}
		if (c != "") { s[c] += n; t += n } }
		END {for (c in s) printf "%s %.1f\n", c, 100 * s[c] / t}' "$1" | sort
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
	cp $f "$VMSTACK_RESULTS/"
	# Of the samples in the script's Python code: the loader's start-up,
	# 1-8% of the samples from run to run (t_unwind_stripped), is no part
	# of what -X perf changes.
	rp=$(rooted_py /tmp/xp-$v-plain.folded)
	rx=$(rooted_py $f)
	# The Python calls in order under _start, each once: leaf's samples
	# under top and mid, and no stub (py::FUNC:FILE) under a merged Python
	# frame (the frame stands for it). A stub is shown where it runs
	# itself (the leaf) or calls no merged frame.
	nleaf=$(stack_count $f "$(pyf leaf)")
	chain=$(stack_count $f "^python$v;_start(;[^;]*)*;$(pyf top)(;[^;]*)*;$(pyf mid)(;[^;]*)*;$(pyf leaf)")
	stubs=$(stack_count $f ";py::[^;]*;[^;]*\(/tmp/xperf\.py:[0-9]+\)_\[vm\]")
	note "CPython $v: of the samples in Python code, rooted at _start $rp% without -X perf, $rx% with it; of $nleaf samples in leaf, under _start, top and mid in order: $chain; stubs shown under a Python frame: $stubs"
	# Release: 100% and 99-100% (88-90% and 91-93% with the start-up counted).
	[ "$rx" -ge $((rp - 3)) ] && [ "$rx" -ge 95 ] || fail "$v: -X perf's stacks end at the stubs"
	[ "$nleaf" -ge 200 ] && [ $((100 * chain / nleaf)) -ge 90 ] ||
		fail "$v: the Python calls not in order under _start"
	[ "$stubs" = 0 ] || fail "$v: stubs shown beside the Python frames they stand for"
	# The same Python stacks without and with -X perf: each chain of
	# Python functions (native frames between them left out: -X perf
	# makes the interpreter call each function from C) has the same share
	# of the samples in Python code within 3 points (each of top, mid and
	# leaf runs a loop of its own).
	py_chains /tmp/xp-$v-plain.folded >/tmp/xp-$v-plain.chains
	py_chains $f >/tmp/xp-$v-perf.chains
	note "CPython $v: Python chains' shares without and with -X perf:"
	join -a1 -a2 -e 0 -o 0,1.2,2.2 /tmp/xp-$v-plain.chains /tmp/xp-$v-perf.chains | tee /tmp/xp-$v.join
	awk '{d = $2 - $3; if (d > 3 || d < -3) bad = 1} END {exit bad}' /tmp/xp-$v.join ||
		fail "$v: -X perf's Python stacks differ from those without it"
done
