# PHP 8.2 (Debian's /usr/bin/php8.2, unmodified, opcache JIT off as
# shipped): a script with a known call tree, started by the recorder and
# attached to while it runs. PHP frames ("function (file:LINE)") sit
# between native frames, rooted at _start; C calls back into PHP (usort
# with a PHP comparator: sorter -> usort's C -> zend_call_function ->
# cmp), and so does PCRE's (sorter -> preg_replace_callback's C ->
# zend_call_function -> repl); heavy and sorter share the CPU as the
# script's own getrusage measure says, within 3 points; heavy's leaf is
# at its hot line.
. tests/guest/lib.sh
. tests/guest/known_tree.sh
script=$VMSTACK_REPO/tests/workloads/php/known82.php
hot() { grep -n "// HOT $1" "$script" | cut -d: -f1; }
fr() { echo "$1 \([^;]*known82\.php:[0-9]+\)_\[vm\]"; }
kt_prog='php8\.2' kt_engine=zend_execute kt_main='\{main\}' kt_min=90
kt_cb_c=zend_call_function kt_cb=cmp kt_cb_is="comparator under usort's C" kt_file=known82.php
# preg_check FOLDED ERRFILE LABEL: repl, which preg_replace_callback's C
# calls (its functions are not exported: php8.2+0x... frames, no
# zend_sort as under usort), under sorter at the line that calls it, in
# 90% of repl's samples; the script saw the same caller.
preg_check() {
	local r u line
	line=$(grep -n "// PREG" "$script" | cut -d: -f1)
	r=$(stack_count "$1" ";$(fr repl)")
	u=$(stack_count "$1" "sorter \([^;]*known82\.php:$line\)_\[vm\];(php8\.2\+0x[0-9a-f]+;)+zend_call_function;$(fr repl)")
	note "$3: repl in $r samples, under sorter's preg_replace_callback (line $line) and its C in $u"
	grep -q '^repl_called_by=preg_replace_callback/sorter$' "$2" ||
		fail "$3: the script did not see preg_replace_callback call repl"
	[ "$r" -ge 10 ] || fail "$3: too few samples in repl"
	[ $((100 * u)) -ge $((90 * r)) ] ||
		fail "$3: repl under sorter's preg_replace_callback and its C in under 90% of its samples"
}
cd /tmp || exit 1
vmstack-record -F 999 -o /tmp/php.folded -- php8.2 "$script" $((4 * span)) 2>/tmp/php.err ||
	{ cat /tmp/php.err; fail "record failed"; }
cat /tmp/php.err
grep -q 'VM frames merged (PHP 8.2' /tmp/php.err || fail "PHP 8.2 not detected"
awk '{print $NF, $0}' /tmp/php.folded | sort -nr | head -3 | cut -c1-600
cp /tmp/php.folded "$VMSTACK_RESULTS/"
known_tree_check /tmp/php.folded /tmp/php.err "started"
preg_check /tmp/php.folded /tmp/php.err "started"

php8.2 "$script" $((8 * span)) 2>/tmp/phpa.out &
pid=$!
sleep $((1 * scale))
vmstack-record -q -F 999 -d $((4 * span)) -p $pid -o /tmp/phpa.folded 2>/tmp/phpa.err ||
	{ cat /tmp/phpa.err; fail "attach failed"; }
# -q leaves the warnings and what was seen but not walked: kept in the log
# (a debug-kernel run once merged no PHP frame after attaching).
cat /tmp/phpa.err
wait $pid
cp /tmp/php.folded /tmp/phpa.folded "$VMSTACK_RESULTS/"
# The split the script printed covers its whole run, the recording a part
# of it in the same steady loop.
known_tree_check /tmp/phpa.folded /tmp/phpa.out "attached"
preg_check /tmp/phpa.folded /tmp/phpa.out "attached"
