# Continuous recording (--every): one pprof file per interval in a
# directory, each whole (go tool pprof reads every one), named by its start
# time, the oldest removed beyond --keep; SIGHUP ends an interval early,
# SIGTERM writes the last one and exits 0; the recorder's memory stays flat
# from interval to interval.
. tests/guest/lib.sh
cd "$VMSTACK_REPO" || exit 1
# The module sees an ordinary -p session here; t_whole's -a sessions give
# the debug kernel its long recordings with churn.
release_only "rotation, --keep, SIGHUP and the recorder's memory: user space's" || exit 0
dir=/tmp/cont
rm -rf $dir
build/workloads/calltree $((40 * scale)) &
c=$!
luajit -joff tests/workloads/lua/work.lua $((40 * scale)) >/dev/null &
l=$!
sleep 0.5
vmstack-record --every $span --keep 5 -d $((12 * span)) -o $dir -p $c,$l 2>/tmp/cont.err &
rec=$!
# The recorder's resident memory at the third interval and at the tenth.
sleep $((3 * span)); rss3=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
sleep $((7 * span)); rss10=$(awk '/^VmRSS/ {print $2}' /proc/$rec/status)
wait $rec || { cat /tmp/cont.err; fail "vmstack-record --every failed"; }
cat /tmp/cont.err
ls -l $dir
written=$(grep -c "^vmstack-record: $dir/vmstack-.*\.pb\.gz: [0-9]* samples" /tmp/cont.err)
kept=$(ls $dir | grep -c '^vmstack-[0-9]\{8\}T[0-9]\{6\}Z\(-[0-9]*\)\?\.pb\.gz$')
note "intervals written $written, kept $kept; recorder RSS ${rss3} KiB at 3 s, ${rss10} KiB at 10 s"
[ "$written" -ge 10 ] || fail "fewer than 10 intervals written in 12 s"
[ "$kept" -eq 5 ] || fail "--keep 5 kept $kept"
[ -z "$(ls -A $dir | grep -v '^vmstack-')" ] || fail "other files left in $dir"
for f in $dir/*.pb.gz; do
	go tool pprof -raw "$f" >/tmp/one.txt 2>&1 || fail "go tool pprof cannot read $f"
	grep -q "pid:\\[$c\\]" /tmp/one.txt && grep -q "pid:\\[$l\\]" /tmp/one.txt ||
		fail "$f lacks a target's samples"
	grep -q 'work\.lua:[0-9]' /tmp/one.txt || fail "$f has no Lua frames"
done
[ "$rss10" -le $((rss3 + 2048)) ] || fail "memory grew from $rss3 to $rss10 KiB"

# SIGHUP ends an interval at once; SIGTERM writes the last and exits 0.
# A target of its own: the checks above take as long as go tool pprof does.
rm -rf $dir
build/workloads/calltree $((20 * scale)) &
h=$!
vmstack-record --every 3600 -o $dir -p $h 2>/tmp/hup.err &
rec=$!
sleep $((2 * scale))
kill -HUP $rec
wait_until 10 sh -c "ls $dir | grep -q '^vmstack-.*\.pb\.gz$'" ||
	{ cat /tmp/hup.err; kill $c $l $h; fail "no profile after SIGHUP"; }
sleep $scale
kill -TERM $rec
wait $rec || { cat /tmp/hup.err; fail "vmstack-record did not exit 0 on SIGTERM"; }
cat /tmp/hup.err
n=$(ls $dir | grep -c '^vmstack-.*\.pb\.gz$')
note "SIGHUP then SIGTERM: $n profiles"
[ "$n" -eq 2 ] || fail "expected 2 profiles (SIGHUP, SIGTERM), found $n"
for f in $dir/*.pb.gz; do
	go tool pprof -raw "$f" >/dev/null 2>&1 || fail "go tool pprof cannot read $f"
done

# Usage: --every needs a directory, and --keep needs --every.
vmstack-record --every 1 -p $c 2>/tmp/u.err
[ $? -eq 2 ] && grep -q "give -o DIR" /tmp/u.err || fail "--every without -o was not a usage error"
vmstack-record --keep 3 -o /dev/null -p $c 2>/tmp/u.err
[ $? -eq 2 ] || fail "--keep without --every was not a usage error"
kill $c $l $h 2>/dev/null
wait $c $l $h 2>/dev/null
true
