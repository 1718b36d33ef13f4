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
# Each function's own loop, timed on the thread's CPU clock: the split
# vmstack's chains are checked against, written as "CHAIN MICROSECONDS".
own = {'top': 0.0, 'mid': 0.0, 'leaf': 0.0}
clock = time.thread_time
def leaf(n):
    t = clock()
    s = 0
    for i in range(n):
        s += i * i
    own['leaf'] += clock() - t
    return s
def mid(n):
    t = clock()
    s = 0
    for i in range(n // 2):
        s += i
    own['mid'] += clock() - t
    return leaf(n) + s
def top(secs):
    end = time.time() + secs
    while time.time() < end:
        t = clock()
        s = 0
        for i in range(10000):
            s += i
        own['top'] += clock() - t
        mid(20000)
top(float(sys.argv[1]))
with open(sys.argv[2], 'w') as f:
    for chain, fn in (('<module>>top', 'top'), ('<module>>top>mid', 'mid'),
                      ('<module>>top>mid>leaf', 'leaf')):
        print(chain, int(own[fn] * 1e6), file=f)
PY
# The ERE of a merged frame of the script, after its function's name.
PYF='\(/tmp/xperf\.py:[0-9]+\)_\[vm\]'
# rooted_py FOLDED: of the samples in the script's Python frames, the
# share (whole percent) rooted at python's _start.
rooted_py() {
	awk -v a="$(stack_count "$1" "^python$v;_start;.*$PYF")" \
		-v b="$(stack_count "$1" "$PYF")" 'BEGIN {printf "%d", b ? 100 * a / b : 0}'
}
# pyf FUNC: the ERE of FUNC's merged frame in the script.
pyf() { echo "$1 $PYF"; }
# py_chains FOLDED: "CHAIN COUNT" per chain of the script's Python
# functions under top (<module>>top>mid>leaf) and the samples in it,
# sorted by chain. The start-up in <module> is left out: the first run
# of each version (the one without -X perf) spent 3.3% there once on the
# debug kernel, the second 0.1% (cold caches, not -X perf).
py_chains() {
	RE="$PYF\$" awk '{n = $NF; sub(/ [0-9]+$/, ""); k = split($0, a, ";"); c = ""
		for (i = 1; i <= k; i++)
			if (a[i] ~ ENVIRON["RE"]) {
				sub(/ \(.*/, "", a[i]); c = c (c == "" ? "" : ">") a[i]
			}
		if (c ~ /^<module>>top(>|$)/) s[c] += n }
		END {for (c in s) print c, s[c]}' "$1" | sort
}
# same_chains A B: the chains of A and B (py_chains, or the script's
# split in microseconds) side by side, each with its share of its file's
# total; 1 if a share differs by more than sampling allows: 4 standard
# deviations of the difference of two binomial shares (with B a clock's
# microseconds, of A's alone), at least 3 points (1,200-2,000 samples a run at 499 Hz
# on the debug kernel: one chain once differed by 3.6 points, 2.9 of
# them). The runs last 4 x span at 999 Hz: 2 s gave about 1,900 samples
# on the release kernel and a difference of 5.1 points against 5.1 once
# (3.13's top; the samples of a loop come in runs, so they spread more
# than independent ones would).
same_chains() {
	join -a1 -a2 -e 0 -o 0,1.2,2.2 "$1" "$2" |
		awk -v t1="$(awk '{s += $2} END {print s}' "$1")" \
			-v t2="$(awk '{s += $2} END {print s}' "$2")" '
		{ s1 = 100 * $2 / t1; s2 = 100 * $3 / t2; p = ($2 + $3) / (t1 + t2)
		  tol = 400 * sqrt(p * (1 - p) * (1 / t1 + 1 / t2)); if (tol < 3) tol = 3
		  d = s1 - s2; if (d < 0) d = -d
		  printf "%s %.1f %.1f (within %.1f)\n", $1, s1, s2, tol
		  if (d > tol) bad = 1 }
		END {exit bad}'
}
for v in 3.12 3.13; do
	py=$(ls /root/.pyenv/versions/$v.*/bin/python$v 2>/dev/null | head -1)
	[ -n "$py" ] || fail "no pyenv CPython $v here (scripts/setup provides the pyenv builds)"
	for mode in plain perf; do
		args=
		[ $mode = perf ] && args="-X perf"
		vmstack-record -q -F 999 -o /tmp/xp-$v-$mode.folded -- $py $args /tmp/xperf.py $((4 * span)) /tmp/xp-$v-$mode.split \
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
	stubs=$(stack_count $f ";py::[^;]*;[^;]*$PYF")
	note "CPython $v: of the samples in Python code, rooted at _start $rp% without -X perf, $rx% with it; of $nleaf samples in leaf, under _start, top and mid in order: $chain; stubs shown under a Python frame: $stubs"
	# Release: 100% and 99-100% (88-90% and 91-93% with the start-up counted).
	[ "$rx" -ge $((rp - 3)) ] && [ "$rx" -ge 95 ] || fail "$v: -X perf's stacks end at the stubs"
	[ "$nleaf" -ge 200 ] && [ $((100 * chain / nleaf)) -ge 90 ] ||
		fail "$v: the Python calls not in order under _start"
	[ "$stubs" = 0 ] || fail "$v: stubs shown beside the Python frames they stand for"
	# The same Python stacks without and with -X perf: in each run, each
	# chain of Python functions (native frames between them left out: -X
	# perf makes the interpreter call each function from C) has the share
	# of its function's own loop in the script's CPU clock, within
	# sampling's spread. (-X perf moves 3.13's split itself: top's loop
	# took 4-5 points more of it on the release kernel.)
	for mode in plain perf; do
		py_chains /tmp/xp-$v-$mode.folded >/tmp/xp-$v-$mode.chains
		note "CPython $v, $mode: the chains' shares, and the script's own split:"
		sort -o /tmp/xp-$v-$mode.split /tmp/xp-$v-$mode.split
		same_chains /tmp/xp-$v-$mode.chains /tmp/xp-$v-$mode.split ||
			fail "$v, $mode: the Python stacks' shares are not the script's split"
	done
done
