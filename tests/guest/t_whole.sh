# Whole-machine sessions (-a, --cgroup): every process that runs is
# sampled; the recorder describes each as its first samples arrive (its
# unwind rules and VMs reach the module), so a native program, LuaJIT,
# Lua 5.4 and CPython 3.11 all show their VM frames merged, including one
# that starts while recording, while short processes come and go. A
# cgroup session samples only its cgroup's processes (a later one too)
# and labels pprof samples with it. Then continuous: -a --every over a
# minute of churn, every profile read by go tool pprof, memory flat.
. tests/guest/lib.sh
cd "$VMSTACK_REPO" || exit 1
out=/tmp/whole.folded
# The workloads outlive the test (its parts take ~90 s); cleanup ends them.
secs=$((400 * scale))
build/workloads/calltree $((2 * secs)) &
c=$!
luajit -joff tests/workloads/lua/work.lua $((2 * secs)) >/dev/null &
l=$!
lua5.4 tests/workloads/lua/known54.lua $((2 * secs)) &
u=$!
/usr/bin/python3.11 tests/workloads/python/known.py $((2 * secs)) split 2>/dev/null &
y=$!
# Churn: a short shell process after another, for the whole test.
(
	end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done'
	done
) &
ch=$!
cleanup() { kill $c $l $u $y $ch 2>/dev/null; wait 2>/dev/null; }
sleep 1

# Usage: one kind of target.
vmstack-record -a -p $c -d 1 -o /dev/null 2>/tmp/u.err
[ $? -eq 2 ] || { cleanup; fail "-a with -p was not a usage error"; }
vmstack-record -a --raw /tmp/x.raw -d 1 -o /dev/null 2>/tmp/u.err
[ $? -eq 2 ] || { cleanup; fail "-a with --raw was not a usage error"; }
vmstack-record --cgroup /nonexistent -d 1 -o /dev/null 2>/tmp/u.err
[ $? -eq 1 ] && grep -q "cannot open cgroup /nonexistent" /tmp/u.err ||
	{ cat /tmp/u.err; cleanup; fail "--cgroup of no directory: no clear error"; }
if grep -qw cgroup2 /proc/filesystems; then
	vmstack-record --cgroup /tmp -d 1 -o /dev/null 2>/tmp/u.err
	[ $? -eq 1 ] && grep -q "not a cgroup v2 directory" /tmp/u.err ||
		{ cat /tmp/u.err; cleanup; fail "--cgroup of a plain directory: no clear error"; }
fi

# -a: a LuaJIT that starts 2 s into the recording is described and merged.
(sleep $((2 * span)); exec luajit -joff tests/workloads/lua/work.lua $((4 * span)) >/dev/null) &
late=$!
vmstack-record -a --stats -F 199 -d $((8 * span)) -o $out 2>/tmp/whole.err ||
	{ cat /tmp/whole.err; cleanup; fail "vmstack-record -a failed"; }
wait $late
cat /tmp/whole.err
cp $out /tmp/whole.err "$VMSTACK_RESULTS/"
of() { stack_count $out "$1"; }
total=$(of '')
nc=$(of "^calltree \\($c\\);")
nl=$(of "^luajit \\($l\\);")
nu=$(of "^lua5.4 \\($u\\);")
ny=$(of "^python3.11 \\($y\\);")
nlate=$(of "^luajit \\($late\\);")
roots=$(sed 's/;.*//' $out | sort -u | wc -l)
note "-a: $total samples under $roots roots: calltree $nc, luajit $nl, lua5.4 $nu, python3.11 $ny, late luajit $nlate"
sed 's/ ([0-9]*);.*//' $out | sort | uniq -c | sort -nr | head -12
for n in $nc $nl $nu $ny $nlate; do
	[ "$n" -gt 100 ] || { cleanup; fail "a process has too few samples ($nc/$nl/$nu/$ny/$nlate)"; }
done
[ "$roots" -ge 6 ] || { cleanup; fail "only $roots processes in a whole-machine profile"; }
hot=$(of "^calltree \\($c\\);(.*;)?main;run;hot_three;spin(;[^;]*_\\[k\\])* ")
cold=$(of "^calltree \\($c\\);(.*;)?main;run;cold_one;spin(;[^;]*_\\[k\\])* ")
lj=$(of "^luajit \\($l\\);.*work\\.lua:[0-9]+_\\[vm\\]")
lu=$(of "^lua5.4 \\($u\\);.*known54\\.lua:[0-9]+_\\[vm\\]")
py=$(of "^python3.11 \\($y\\);.*known\\.py:[0-9]+\\)_\\[vm\\]")
lt=$(of "^luajit \\($late\\);.*work\\.lua:[0-9]+_\\[vm\\]")
note "calltree hot/cold $hot/$cold; VM frames: luajit $lj/$nl, lua5.4 $lu/$nu, python3.11 $py/$ny, late luajit $lt/$nlate"
split_about "$hot" "$cold" 3 || { cleanup; fail "calltree's hot/cold ratio is not about 3"; }
for p in "$lj $nl" "$lu $nu" "$py $ny" "$lt $nlate"; do
	set -- $p
	[ $((100 * $1 / $2)) -ge 85 ] || { cleanup; fail "VM frames in under 85% of a VM's samples ($1 of $2)"; }
done
grep -q "processes seen" /tmp/whole.err && grep -q "described [0-9]* ms (median" /tmp/whole.err ||
	{ cleanup; fail "the summary does not count processes and their description time"; }
# Rows shared per file: most mappings' rows are another process's (libc's).
shared=$(sed -n 's/.*unwind rules: \([0-9]*\) mappings (\([0-9]*\) of them rows another process uploaded).*/\2 of \1/p' /tmp/whole.err)
note "-a: rows of $shared mappings placed from another process's upload"
[ "${shared%% *}" -ge 10 ] 2>/dev/null || { cleanup; fail "-a: rows not shared between processes ($shared)"; }

# --cgroup: only the cgroup's processes, one started later included. A
# kernel without cgroups (the debug lane's) refuses it by name.
cg=/sys/fs/cgroup
if ! grep -qw cgroup2 /proc/filesystems; then
	vmstack-record --cgroup / -d 1 -o /dev/null 2>/tmp/u.err
	[ $? -eq 1 ] && grep -q "no cgroups (CONFIG_CGROUPS)" /tmp/u.err ||
		{ cat /tmp/u.err; cleanup; fail "--cgroup on a kernel without cgroups: no clear error"; }
	note "--cgroup: this kernel has no cgroups; refused with a message"
else
mountpoint -q $cg || mount -t cgroup2 none $cg || { cleanup; fail "cannot mount cgroup2"; }
mkdir -p $cg/vmstest
echo $l >$cg/vmstest/cgroup.procs || { cleanup; fail "cannot move luajit into the cgroup"; }
(sleep $scale; echo $BASHPID >$cg/vmstest/cgroup.procs; exec build/workloads/calltree $((3 * span))) &
incg=$!
vmstack-record --cgroup vmstest -F 199 -d $((scale + 3 * span)) -o /tmp/cg.pb.gz 2>/tmp/cg.err ||
	{ cat /tmp/cg.err; cleanup; fail "vmstack-record --cgroup failed"; }
wait $incg
cat /tmp/cg.err
go tool pprof -raw /tmp/cg.pb.gz >/tmp/cg.raw.txt 2>&1
cp /tmp/cg.pb.gz /tmp/cg.raw.txt "$VMSTACK_RESULTS/"
pids=$(grep -o 'pid:\[[0-9]*\]' /tmp/cg.raw.txt | sort -u | tr '\n' ' ')
note "--cgroup vmstest: pids $pids (luajit $l, calltree started in it $incg)"
[ "$(grep -o 'pid:\[[0-9]*\]' /tmp/cg.raw.txt | sort -u | wc -l)" -eq 2 ] &&
	grep -q "pid:\[$l\]" /tmp/cg.raw.txt && grep -q "pid:\[$incg\]" /tmp/cg.raw.txt ||
	{ cleanup; fail "--cgroup: not exactly the cgroup's two processes"; }
grep -q 'cgroup:\[/vmstest\]' /tmp/cg.raw.txt || { cleanup; fail "pprof: no cgroup label"; }
grep -q 'work\.lua:[0-9]' /tmp/cg.raw.txt || { cleanup; fail "--cgroup: no Lua frames"; }
echo $l >$cg/cgroup.procs
rmdir $cg/vmstest
fi

# --children: a shell's children (native and LuaJIT) join its session.
vmstack-record --children -F 499 -o /tmp/ch.folded -- sh -c \
	"build/workloads/calltree $((3 * span)) & luajit -joff tests/workloads/lua/work.lua $((3 * span)) >/dev/null; wait" \
	2>/tmp/ch.err || { cat /tmp/ch.err; cleanup; fail "vmstack-record --children failed"; }
cat /tmp/ch.err
cp /tmp/ch.folded /tmp/ch.err "$VMSTACK_RESULTS/"
chc=$(stack_count /tmp/ch.folded '^calltree \([0-9]+\);')
chh=$(stack_count /tmp/ch.folded '^calltree \([0-9]+\);(.*;)?main;run;hot_three;')
chl=$(stack_count /tmp/ch.folded '^luajit \([0-9]+\);')
chv=$(stack_count /tmp/ch.folded '^luajit \([0-9]+\);.*work\.lua:[0-9]+_\[vm\]')
note "--children: calltree $chc samples ($chh in hot_three), luajit $chl ($chv with Lua frames)"
# Each child shares 2 vCPUs with the four busy workloads above (and the
# churn): about a third of a CPU, 500 samples in 3 s; 297 on a busy host.
[ "$chc" -gt 150 ] && [ "$chl" -gt 150 ] || { cleanup; fail "--children: a child has too few samples"; }
[ $((100 * chv / chl)) -ge 85 ] || { cleanup; fail "--children: Lua frames in under 85% of luajit's samples"; }
[ $((100 * chh / chc)) -ge 55 ] || { cleanup; fail "--children: calltree's hot_three under 55%"; }

# --children ended by -d while the command runs, a child of it exited:
# the command is ended too, not waited for (a child's exit was taken for
# the command's). It execs sleep: no process of it outlives the test.
chd_start=$(date +%s)
vmstack-record --children -q -d $((2 * span)) -o /tmp/chd.folded -- sh -c \
	"build/workloads/calltree $span; exec sleep $((60 * scale))" 2>/tmp/chd.err ||
	{ cat /tmp/chd.err; cleanup; fail "vmstack-record --children -d failed"; }
took=$(($(date +%s) - chd_start))
note "--children -d $((2 * span)), a child exited: the recorder ended after $took s"
[ $took -le $((12 * scale)) ] || { cleanup; fail "--children -d: the recorder waited $took s for its command"; }

# Continuous over a minute of churn: rotated profiles, memory flat. The
# module's part, -a with churn, ran above on every kernel.
release_only "-a --every: rotation and the recorder's memory are user space's" ||
	{ cleanup; exit 0; }
dir=/tmp/whole-cont
rm -rf $dir
# A minute on every kernel (the debug lane's samples are as many), 6
# intervals (each profile is read by go tool pprof below, seconds each on
# the debug kernel). The recorder's memory steps up once, when it writes
# its first profile (the encoder's buffers: RssAnon 5.5 to 9.9 MiB at the
# first write, release kernel), and that write comes 10 s in on the
# release kernel but later on the debug one (12.6 MiB still at 15 s there
# in a failed run). So the baseline is taken once two profiles are
# written: from then on a leak has four intervals to show (it grew 208
# and 272 KiB in two release runs).
cont=60
vmstack-record -a -F 99 --every $((cont / 6)) -d $cont -o $dir 2>/tmp/wc.err &
rec=$!
profiles() { ls $dir 2>/dev/null | grep -c '^vmstack-.*\.pb\.gz$'; }
t0=$SECONDS
while [ "$(profiles)" -lt 2 ] &&
	[ $((SECONDS - t0)) -lt $((cont * 2 / 3)) ]; do
	sleep 1
done
at1=$((SECONDS - t0)); rss1=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
sleep $((cont - 5 - at1)); rss2=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
at2=$((SECONDS - t0))
wait $rec || { cat /tmp/wc.err; cleanup; fail "vmstack-record -a --every failed"; }
tail -4 /tmp/wc.err
cp /tmp/wc.err "$VMSTACK_RESULTS/"
# Where the CPU went, by process name (the recorder's own share included).
go tool pprof -tags $dir/*.pb.gz 2>/dev/null | awk '/^ *comm:/ {on = 1; n = 0} /^ *[a-z_]+:/ && !/comm:/ {on = 0} on && n++ < 9'
n=$(profiles)
note "-a --every: $n profiles in $cont s; recorder RSS $rss1 KiB at $at1 s (two profiles written), $rss2 KiB at $at2 s"
[ "$n" -ge 5 ] || { cleanup; fail "fewer than 5 profiles in 6 intervals"; }
bad=
for f in $dir/*.pb.gz; do
	go tool pprof -raw "$f" >/tmp/one.txt 2>&1 || { cleanup; fail "go tool pprof cannot read $f"; }
	# Samples of each long-running process, and of them with VM frames.
	echo "$f: $(for p in $c $l $u $y; do
		printf '%s ' "$p:$(grep -c "pid:\[$p\]" /tmp/one.txt)"; done)"
	for want in 'work\.lua:[0-9]' 'known54\.lua:[0-9]' 'known\.py:[0-9]' 'hot_three'; do
		grep -q "$want" /tmp/one.txt || bad="$bad $(basename $f): no $want;"
	done
done
[ -z "$bad" ] || { cleanup; fail "$bad"; }
[ -n "$rss1" ] && [ "$at1" -lt $((cont * 2 / 3)) ] ||
	{ cleanup; fail "-a --every: two profiles not written in $((cont * 2 / 3)) s"; }
[ "$rss2" -le $((rss1 + 2048)) ] || { cleanup; fail "memory grew from $rss1 KiB at $at1 s to $rss2 KiB at $at2 s"; }
cleanup
true
