# CPython 3.11 (Debian's /usr/bin/python3.11, unmodified): Python frames
# merged with the native frames between them, on tests/workloads/python/
# known.py, whose modes have known call trees and CPU splits:
#   split     heavy/light/other 50/25/25 by construction; cProfile's
#             cumulative times (reference.py) as the independent reference;
#             the leaf's current line against the hot line the script names
#   sandwich  C->Py->C->Py->C through the project's extension (vmsext),
#             sorted() with a key function, re.sub() with a function
#   threads   two threads in different functions, 2/3 and 1/3 of their CPU
#   gen       a generator pipeline and an asyncio task
#   forkexec  a process that forks, then execs python3.11 again
# launched under the recorder, and attached to (split); and a script in a
# file named with spaces, parentheses and a colon, read back from pprof.
. tests/guest/lib.sh
py=/usr/bin/python3.11
dir=tests/workloads/python
export VMSEXT_DIR=build/workloads
# A Python frame of known.py's function $1 (any line; its qualified name
# may name its class or enclosing function), as an ERE.
fr() { echo "([^;]*\.)?${1} \([^;]*known\.py:[0-9]+\)_\[vm\]"; }
# Samples in Python code: a Python frame, a cut VM part, or the
# interpreter's native frame left unmerged.
in_py='_\[vm\]|vm stack cut|;_PyEval_EvalFrameDefault(;| )'
count() { grep -E -- "$2" "$1" | grep -vE -- "${3:-^\$}" |
	awk '{s += $NF} END {print s+0}'; }
# pct A B: A as a whole percent of B
pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%d", b ? 100 * a / b : 0}'; }
# share3 A B C: each of three counts as a share (one decimal) of their sum
share3() { awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN {t = a + b + c; if (!t) t = 1
	printf "%.1f %.1f %.1f", 100 * a / t, 100 * b / t, 100 * c / t}'; }
# hot FILE NAME: the hot line known.py printed for function NAME
hot() { grep -o " $2=[0-9]*" "$1" | head -1 | cut -d= -f2; }
# rooted FILE ROOT_ERE [CUT]: of the samples in Python code (less CUT of
# them, which the handler's budget cut), the share (whole percent) merged
# and rooted: matching ROOT_ERE, with no cut VM part and no unmerged
# interpreter frame.
rooted() {
	local all=$(count "$1" "$in_py")
	local ok=$(grep -E -- "$in_py" "$1" | grep -E -- "$2" |
		grep -vE 'vm stack cut|;_PyEval_EvalFrameDefault(;| )' | awk '{s += $NF} END {print s+0}')
	pct "$ok" "$((all - ${3:-0}))"
	# What is not, for the log.
	grep -E -- "$in_py" "$1" | grep -E -v -- "$2" | awk '{print $NF, $0}' | sort -nr |
		head -4 | cut -c1-600 >&2
	grep -E -- "$in_py" "$1" | grep -E -- 'vm stack cut|;_PyEval_EvalFrameDefault(;| )' |
		awk '{print $NF, $0}' | sort -nr | head -4 | cut -c1-600 >&2
}
record() {  # OUTPUT SECONDS MODE: launch known.py under the recorder
	vmstack-record --stats -F 999 -o "$1" -- $py $dir/known.py "$2" "$3" 2>"$1.err" ||
		{ cat "$1.err"; fail "$3: record failed"; }
	grep -q 'VM frames merged (CPython 3.11' "$1.err" || { cat "$1.err"; fail "$3: CPython not detected"; }
	grep -v "^hotline\|^done" "$1.err"
}
top() { awk '{print $NF, $0}' "$1" | sort -nr | head -"${2:-3}" | cut -c1-2000; }

# ---- split: shares, rooting, the leaf's line; launched and attached
check_split() {  # FOLDED ERRFILE LABEL REF(h l o)
	local f=$1 h l o s1 s2 s3 r u lh ll lo r1 r2 r3
	read -r r1 r2 r3 <<<"$4"
	h=$(count "$f" ";$(fr heavy)")
	l=$(count "$f" ";$(fr light)")
	o=$(count "$f" ";$(fr other)")
	read -r s1 s2 s3 <<<"$(share3 "$h" "$l" "$o")"
	r=$(rooted "$f" '^python3\.11;_start;')
	u=$(count "$f" "^python3\.11;_start;.*;<module> \([^;]*known\.py:[0-9]+\)_\[vm\];.*;($(fr heavy)|$(fr light)|$(fr other))")
	lh=$(leaf_share "$f" '^heavy \(' "known.py:$(hot "$2" heavy))_[vm]")
	ll=$(leaf_share "$f" '^light \(' "known.py:$(hot "$2" light))_[vm]")
	lo=$(leaf_share "$f" '^other \(' "known.py:$(hot "$2" other))_[vm]")
	note "$3: $((h + l + o)) samples in the work: heavy/light/other $s1/$s2/$s3 (construction 50/25/25; cProfile $r1/$r2/$r3); in Python code merged and rooted at _start $r%, the work's under known.py's <module> $(pct $u $((h + l + o)))%; leaf at the hot line: heavy $lh% light $ll% other $lo%"
	[ $((h + l + o)) -ge 500 ] || fail "$3: too few samples"
	[ "$r" -ge 95 ] || fail "$3: under 95% of samples in Python code merged and rooted at _start"
	[ "$(pct $u $((h + l + o)))" -ge 95 ] || fail "$3: under 95% of the work under the script's <module>"
	within 3 "$s1" 50 "$s2" 25 "$s3" 25 || fail "$3: shares off the construction by more than 3 points"
	# cProfile's per-call cost moves its own shares off the construction
	# (47.4/25.9/26.7 in a clean-clone run: 2.6 points; 0.6 in others),
	# and a share of 4,000 samples spreads by 0.8 points: vmstack's 3
	# points from the construction above plus cProfile's 2.6 is 5.6 at
	# worst. Measured: 3.5 (attached, 50.9 against 47.4), which failed 3
	# and left 0.5 of 4; 5 points against cProfile.
	within 5 "$s1" "$r1" "$s2" "$r2" "$s3" "$r3" || fail "$3: shares off cProfile's by more than 5 points"
	[ "$lh" -ge 90 ] && [ "$ll" -ge 90 ] && [ "$lo" -ge 90 ] ||
		fail "$3: the leaf's current line right in under 90% of samples"
}
# cProfile's cumulative shares (reference.py), the independent reference.
$py $dir/reference.py split $((3 * span)) >/tmp/pyref.txt || fail "reference.py failed"
ref=$(awk '{printf "%s ", $2}' /tmp/pyref.txt)
record /tmp/py.folded $((4 * span)) split
top /tmp/py.folded 1
check_split /tmp/py.folded /tmp/py.folded.err "launched" "$ref"

$py $dir/known.py $((10 * scale)) split 2>/tmp/pya.hot &
pid=$!
# Past the interpreter's start-up, into the split's rounds.
sleep $((2 * span))
vmstack-record -q -F 999 -d $((4 * span)) -p $pid -o /tmp/pya.folded 2>/tmp/pya.err ||
	{ cat /tmp/pya.err; fail "attach failed"; }
kill $pid; wait $pid 2>/dev/null
grep -q 'VM frames merged (CPython 3.11' /tmp/pya.err || { cat /tmp/pya.err; fail "attach: CPython not detected"; }
check_split /tmp/pya.folded /tmp/pya.hot "attached" "$ref"

# ---- sandwich: C->Py->C->Py->C, builtins calling back
record /tmp/pys.folded $((4 * span)) sandwich
top /tmp/pys.folded 2
f=/tmp/pys.folded
nat=';(.*;)?[^;]*[^];](;.*)?;'	# at least one native frame between
inner=$(count $f ";$(fr inner)")
chain=$(count $f ";$(fr outer)${nat}vmsext_call_c;(.*;)?$(fr middle)${nat}vmsext_call_c;(.*;)?$(fr inner)${nat}vmsext_spin_c")
key=$(count $f ";$(fr keyfn)")
keyc=$(count $f ";$(fr sort_work)${nat}$(fr keyfn)")
repl=$(count $f ";$(fr replfn)")
replc=$(count $f ";$(fr sub_work)${nat}$(fr replfn)")
read -r s1 s2 s3 <<<"$(share3 "$(count $f ";$(fr outer)")" "$(count $f ";$(fr sort_work)")" \
	"$(count $f ";$(fr sub_work)")")"
cp $f "$VMSTACK_RESULTS/"
cpu=$(sed -n 's/.*mode=sandwich.*cpu_shares=\([0-9.\/]*\).*/\1/p' $f.err)
r=$(rooted $f '^python3\.11;_start;')
note "sandwich: inner's samples with the whole C->Py->C->Py->C chain $(pct $chain $inner)% ($chain of $inner); keyfn under sort_work through sorted's C frames $(pct $keyc $key)%, replfn under sub_work through re's $(pct $replc $repl)%; outer/sort_work/sub_work $s1/$s2/$s3 (the script's CPU split $cpu); merged and rooted $r%"
[ "$inner" -ge 100 ] && [ "$key" -ge 50 ] && [ "$repl" -ge 50 ] || fail "sandwich: too few samples"
[ "$(pct $chain $inner)" -ge 95 ] || fail "sandwich: the C->Py->C->Py->C chain incomplete in over 5% of inner's samples"
[ "$(pct $keyc $key)" -ge 95 ] && [ "$(pct $replc $repl)" -ge 95 ] ||
	fail "sandwich: callbacks from builtins not under their caller"
[ "$r" -ge 95 ] || fail "sandwich: under 95% merged and rooted at _start"
within 3 "$s1" "${cpu%%/*}" "$s3" "${cpu##*/}" || fail "sandwich: shares off the script's CPU split"

# ---- threads: each thread's own frames, not the GIL holder's. Both
# threads on one CPU (they take turns on the GIL anyway): with a thread on
# each vCPU, TCG's timers sample one vCPU more than the other (perf
# agreed, 64-70% for the 2/3 thread), so the threads' own CPU clocks are
# the reference only on one CPU.
vmstack-record --stats -F 999 -o /tmp/pyt.folded -- taskset -c 0 $py $dir/known.py $((5 * span)) \
	threads 2>/tmp/pyt.folded.err || { cat /tmp/pyt.folded.err; fail "threads: record failed"; }
grep -v "^hotline\|^done" /tmp/pyt.folded.err
top /tmp/pyt.folded 2
f=/tmp/pyt.folded
a=$(count $f ";$(fr work_a)")
b=$(count $f ";$(fr work_b)")
both=$(count $f ";$(fr work_a).*;$(fr work_b)|;$(fr work_b).*;$(fr work_a)")
# A thread's stack ends in libc's clone3 and start_thread (named from
# libc6-dbg's debug file: Debian's libc has no symbols for them), then
# python3.11's thread start (stripped, no debug file), then Python's
# Thread._bootstrap.
troot='^python3\.11;clone3;start_thread;python3\.11\+0x[0-9a-f]+;'
ra=$(count $f "$troot.*;Thread\._bootstrap \([^;]*threading\.py:[0-9]+\)_\[vm\];.*;$(fr work_a)")
rb=$(count $f "$troot.*;Thread\._bootstrap \([^;]*threading\.py:[0-9]+\)_\[vm\];.*;$(fr work_b)")
# The workers' samples outside work_a and work_b, for the log.
grep -E "Thread\._bootstrap" $f | grep -vE "$(fr work_a)|$(fr work_b)" | awk '{print $NF, $0}' |
	sort -nr | head -5 | cut -c1-700
read -r s1 s2 s3 <<<"$(share3 "$a" "$b" 0)"
cpu=$(sed -n 's/.*mode=threads.*cpu_shares=\([0-9.\/]*\).*/\1/p' /tmp/pyt.folded.err)
r=$(rooted $f "^python3\.11;_start;|$troot")
note "threads: work_a/work_b $s1/$s2 (the threads' CPU clocks $cpu); rooted at the thread's start (clone3, start_thread) through Thread._bootstrap: work_a $(pct $ra $a)% work_b $(pct $rb $b)%; samples with both threads' frames $both; merged and rooted $r%"
[ $((a + b)) -ge 300 ] || fail "threads: too few samples"
[ "$both" -eq 0 ] || fail "threads: a stack mixes two threads' frames"
[ "$(pct $ra $a)" -ge 95 ] && [ "$(pct $rb $b)" -ge 95 ] || fail "threads: under 95% rooted at the thread's start"
within 3 "$s1" "${cpu%%/*}" || fail "threads: shares off the threads' CPU clocks by more than 3 points"
[ "$r" -ge 95 ] || fail "threads: under 95% merged and rooted"

# ---- gen: a generator pipeline and an asyncio task, where they run
record /tmp/pyg.folded $((6 * span)) gen
top /tmp/pyg.folded 2
grep -E "task_work" /tmp/pyg.folded > /tmp/pyg.task
top /tmp/pyg.task 1
f=/tmp/pyg.folded
src=$(count $f ";$(fr source)")
pipe=$(count $f ";$(fr consume)${nat}$(fr square)${nat}$(fr source)")
task=$(count $f ";$(fr task_work)")
loop=$(count $f ";BaseEventLoop\._run_once \([^;]*base_events\.py:[0-9]+\)_\[vm\];.*;$(fr task_work)")
# The split the script measures: its rounds in run_weighted, not the
# warm-up round of each before them (as t_cpython_versions counts it).
read -r s1 s2 s3 <<<"$(share3 "$(count $f ";$(fr run_weighted);(.*;)?$(fr gen_chunk)")" \
	"$(count $f ";$(fr run_weighted);(.*;)?$(fr async_chunk)")" 0)"
cpu=$(sed -n 's/.*mode=gen.*cpu_shares=\([0-9.\/]*\).*/\1/p' $f.err)
# asyncio's stacks are the deepest here: on the debug kernel (KASAN, ~3 us
# a frame under TCG) the handler's 500 us budget cuts the longest walks,
# counted by the recorder ("N by the read budget"); they are not the
# merge's failures, and the share is of the others.
cut=$(sed -n 's/.*; \([0-9]*\) by the read budget.*/\1/p' $f.err)
r=$(rooted $f '^python3\.11;_start;' "${cut:-0}")
note "gen: source's samples under consume and square $(pct $pipe $src)%; task_work's under the event loop's _run_once $(pct $loop $task)%; gen_chunk/async_chunk $s1/$s2 (the script's CPU split $cpu); merged and rooted $r% of those the handler's budget did not cut (${cut:-0} cut)"
[ "$src" -ge 50 ] && [ "$task" -ge 100 ] || fail "gen: too few samples"
[ "$(pct $pipe $src)" -ge 95 ] || fail "gen: generator frames not where they run"
[ "$(pct $loop $task)" -ge 95 ] || fail "gen: the asyncio task not under its event loop"
within 3 "$s1" "${cpu%%/*}" || fail "gen: shares off the script's CPU split"
[ "$r" -ge 95 ] || fail "gen: under 95% merged and rooted"

# ---- forkexec: the process that forks, then execs python3.11 again
record /tmp/pyf.folded $((6 * span)) forkexec
f=/tmp/pyf.folded
before=$(count $f ";$(fr before_exec)")
after=$(count $f ";$(fr split_round)" "$(fr before_exec)")
child=$(count $f ";$(fr in_child)")
r=$(rooted $f '^python3\.11;_start;')
note "forkexec: before the exec $before samples, after it $after, the forked child's $child (children are not followed: a session is one process); merged and rooted $r%"
[ "$before" -ge 100 ] && [ "$after" -ge 100 ] || fail "forkexec: Python frames missing before or after the exec"
[ "$r" -ge 95 ] || fail "forkexec: under 95% merged and rooted"

# ---- names as data: a file named with spaces, parentheses and a colon
# reaches pprof as the namer's parts (function lemur, the whole file, the
# running line, the first line), live and through a raw recording, not cut
# where a "(file:LINE)" would be looked for.
if release_only "names as data through pprof: user space's"; then
	odd="/tmp/py dir/odd (v2):x.py"
	mkdir -p "/tmp/py dir"
	cat >"$odd" <<'PY'
import sys, time
def lemur(seconds):
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return n
lemur(float(sys.argv[1]))
PY
	vmstack-record -q -F 999 -o /tmp/pyodd.pb.gz --raw /tmp/pyodd.raw -- $py "$odd" $((2 * span)) ||
		fail "odd path: record failed"
	vmstack-report -i /tmp/pyodd.raw -o /tmp/pyodd.report.pb.gz 2>/dev/null || fail "odd path: report failed"
	for pb in /tmp/pyodd.pb.gz /tmp/pyodd.report.pb.gz; do
		go tool pprof -raw $pb >$pb.txt 2>&1
		# "ID: ADDRESS M=MAPPING FUNCTION FILE:LINE s=FIRST": lemur, defined at line 2, runs lines 3-7.
		loc=$(grep -E '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ lemur /tmp/py dir/odd \(v2\):x\.py:[3-7] s=2$' $pb.txt | head -1)
		note "odd path, $pb: $loc"
		[ -n "$loc" ] || { grep lemur $pb.txt; fail "odd path: $pb has no function lemur in '$odd' at its line"; }
	done
fi

# ---- the handler's cost per sample on Python stacks, beside LuaJIT's
# (the sandwich workload: C and Lua calling each other) in the same boot.
vmstack-record -q --stats -F 999 -o /tmp/pylj.folded -- build/workloads/sandwich $((4 * span)) \
	2>/tmp/pylj.err || fail "LuaJIT sandwich: record failed"
note "handler per sample: CPython split: $(grep -o 'handler: p50 [^,]*, p99 [^,]*' /tmp/py.folded.err); CPython sandwich: $(grep -o 'handler: p50 [^,]*, p99 [^,]*' /tmp/pys.folded.err); LuaJIT sandwich: $(grep -o 'handler: p50 [^,]*, p99 [^,]*' /tmp/pylj.err)"
