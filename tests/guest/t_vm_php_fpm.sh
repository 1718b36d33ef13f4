# php-fpm8.2 (Debian's php8.2-fpm, unmodified): the PHP 8.2 engine in
# another executable. A pool of two workers (pm static) serves a known
# script (tests/workloads/php/fpm82.php: page -> heavy, page -> sorter ->
# usort's C -> cmp) to two FastCGI clients on a unix socket
# (tests/workloads/php/fcgi_get.py); the recorder attaches to the two
# workers, a -p list of their pids, for 3 s. Each worker's samples show
# PHP frames; of the samples in the engine's run of the script, 95% are
# rooted at _start (the master's, inherited by fork) and 90% are under
# {main} and page; the comparator is under usort's C.
. tests/guest/lib.sh
command -v php-fpm8.2 >/dev/null || fail "php-fpm8.2 missing (php8.2-fpm: scripts/setup installs it)"
script=$VMSTACK_REPO/tests/workloads/php/fpm82.php
fr() { echo "$1 \([^;]*fpm82\.php:[0-9]+\)_\[vm\]"; }
dir=/tmp/fpm
rm -rf $dir
mkdir -p $dir
cat >$dir/php-fpm.conf <<EOF
[global]
error_log = $dir/fpm.log
daemonize = no
[t]
listen = $dir/sock
pm = static
pm.max_children = 2
EOF
# -n: no php.ini, so no opcache (its JIT is off by default anyway); -R:
# the guest runs the test as root.
php-fpm8.2 -n -R -y $dir/php-fpm.conf &
master=$!
clients=
cleanup() {
	kill $clients $master 2>/dev/null
	wait $master 2>/dev/null
}
trap cleanup EXIT
# The master forks its workers once it listens.
two_workers() { test -S $dir/sock && [ "$(pgrep -P $master | grep -c .)" = 2 ]; }
wait_until 30 two_workers || { cat $dir/fpm.log; fail "php-fpm did not start two workers"; }
workers=$(pgrep -P $master | sort -n | tr '\n' ',' | sed 's/,$//')
secs=$((3 * span))
# Two clients, request after request: both workers busy while recorded.
for i in 1 2; do
	python3 "$VMSTACK_REPO/tests/workloads/php/fcgi_get.py" $dir/sock "$script" $((secs + 2 * scale)) \
		>$dir/client$i.out &
	clients="$clients $!"
done
sleep 1
vmstack-record -F 999 -d $secs -p "$workers" -o /tmp/fpm.folded 2>/tmp/fpm.err ||
	{ cat /tmp/fpm.err; fail "vmstack-record failed on php-fpm's workers"; }
cat /tmp/fpm.err
wait $clients
clients=
cat $dir/client1.out $dir/client2.out
cp /tmp/fpm.folded "$VMSTACK_RESULTS/"
awk '{print $NF, $0}' /tmp/fpm.folded | sort -nr | head -3 | cut -c1-600
f=/tmp/fpm.folded
total=$(stack_count $f '')
engine=$(stack_count $f ';zend_execute;')
rooted=$(stack_count $f '^php-fpm8\.2 \([0-9]+\);_start;.*;zend_execute;')
page=$(stack_count $f "^php-fpm8\\.2 \\([0-9]+\\);_start;.*;zend_execute;$(fr '\{main\}');$(fr page)")
s=$(stack_count $f ";$(fr sorter)")
sand=$(stack_count $f "$(fr sorter);.*;zend_call_function;(.*;)?$(fr cmp)")
cut=$(stack_share $f 'vm stack cut')
pct() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%d", b ? 100 * a / b : 0}'; }
note "$total samples of workers $workers, in zend_execute $engine: rooted at _start $(pct $rooted $engine)%, under {main} and page $(pct $page $engine)%; cmp under usort's C in $(pct $sand $s)% of sorter's; VM part cut $cut%"
for w in ${workers//,/ }; do
	n=$(stack_count $f "^php-fpm8\\.2 \\($w\\);.*$(fr page)")
	note "worker $w: $n samples in page"
	# Several processes: "VM frames merged: COMM (PID): LABEL, ...".
	grep -q "php-fpm8\.2 ($w): PHP 8\.2" /tmp/fpm.err || fail "worker $w: PHP 8.2 not detected"
	cat $dir/client?.out | grep -q "^served by $w\$" || fail "worker $w served no request"
	[ "$n" -ge 50 ] || fail "worker $w: under 50 samples with PHP frames"
done
[ "$total" -ge 300 ] || fail "too few samples"
[ "$(pct $rooted $engine)" -ge 95 ] || fail "under 95% of the script's samples rooted at _start"
[ "$(pct $page $engine)" -ge 90 ] || fail "under 90% of the script's samples under {main} and page"
[ $((100 * sand)) -ge $((50 * s)) ] || fail "the comparator not under usort's C in half of sorter's samples"
[ "$cut" -le 2 ] || fail "more than 2% of VM stacks cut"
