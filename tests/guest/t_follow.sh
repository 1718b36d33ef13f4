# -p follows the processes its target starts, and those it had started
# (as perf -p's inherited events do, and further): nginx's master named,
# its two workers (started before the recorder) are sampled under their
# own PIDs, each with its Lua frames merged (each described on its own:
# its own LuaJIT, its own rules); a child a shell starts after the
# recorder attached is followed too. --no-inherit keeps to the process
# named.
. tests/guest/lib.sh
OR=/opt/vmstack/openresty
[ -e $OR/.complete ] || fail "no OpenResty prefix at $OR (scripts/setup makes it)"
dir=/tmp/follow
mkdir -p $dir
sed "s|@OR@|$OR|g; s|@DIR@|$dir|g; s|@HANDLER@|$VMSTACK_REPO/tests/workloads/nginx/handler.lua|" \
	"$VMSTACK_REPO/tests/workloads/nginx/workers.conf.in" >$dir/nginx.conf
ip link set lo up 2>/dev/null
LD_LIBRARY_PATH=$OR/usr/lib/x86_64-linux-gnu nginx -p $dir -c $dir/nginx.conf &
master=$!
clients=
cleanup() {
	kill $clients $master 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
wait_until 60 curl -s -o /dev/null http://127.0.0.1:8091/work || {
	cat $dir/error.log
	fail "nginx did not answer"
}
workers=$(cat /proc/$master/task/*/children)
[ "$(echo $workers | wc -w)" = 2 ] || fail "nginx has workers '$workers', not two"
# Connections spread over the workers by reuseport's hash: four clients.
for i in 1 2 3 4; do
	curl -s -o /dev/null "http://127.0.0.1:8091/work?[1-1000000]" &
	clients="$clients $!"
done
vmstack-record -q -p $master -d $((3 * span)) -o $dir/all.folded 2>$dir/all.err ||
	{ cat $dir/all.err; fail "vmstack-record -p master failed"; }
cat $dir/all.err
busy=0
for w in $workers; do
	n=$(stack_count $dir/all.folded "^nginx \\($w\\);")
	lua=$(stack_count $dir/all.folded "^nginx \\($w\\);.*handler\\.lua:")
	note "worker $w: $n samples, $lua with handler.lua's frames merged"
	[ "$n" -lt 50 ] && continue
	busy=$((busy + 1))
	[ $((100 * lua / n)) -ge 50 ] || fail "worker $w: its Lua frames not merged (its VM not described)"
done
[ $busy -ge 1 ] || fail "no worker's samples under its own PID"
grep -q "2 child processes of the targets followed, 0 of them not described" $dir/all.err ||
	fail "the summary does not count the workers followed"

vmstack-record -q --no-inherit -p $master -d $span -o $dir/named.folded 2>$dir/named.err ||
	{ cat $dir/named.err; fail "vmstack-record --no-inherit failed"; }
for w in $workers; do
	grep -q "($w)" $dir/named.folded && fail "--no-inherit: worker $w sampled"
done
cleanup
clients=

# A child started after the recorder attached.
bash -c "sleep $scale; build/workloads/calltree $((2 * span)); true" &
sh_pid=$!
vmstack-record -q -p $sh_pid -o $dir/later.folded 2>$dir/later.err ||
	{ cat $dir/later.err; fail "vmstack-record -p of the shell failed"; }
cat $dir/later.err
n=$(stack_count $dir/later.folded '^calltree \([0-9]+\);.*;hot_three;spin ')
note "a child started after attaching: $n samples in its hot_three"
[ "$n" -ge 100 ] || fail "a child started after attaching was not followed"
