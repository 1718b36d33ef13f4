# PHP 8.2 (Debian's /usr/bin/php8.2, unmodified, opcache JIT off as
# shipped): a script with a known call tree, started by the recorder and
# attached to while it runs. PHP frames ("function (file:LINE)") sit
# between native frames, rooted at _start; C calls back into PHP (usort
# with a PHP comparator: sorter -> usort's C -> zend_call_function ->
# cmp); heavy and sorter share the CPU as the script's own getrusage
# measure says, within 3 points; heavy's leaf is at its hot line.
. tests/guest/lib.sh
script=$VMSTACK_REPO/tests/workloads/php/known82.php
hot() { grep -n "// HOT $1" "$script" | cut -d: -f1; }
fr() { echo "$1 \([^;]*known82\.php:[0-9]+\)_\[vm\]"; }
check() {  # FOLDED ERRFILE LABEL
	local f=$1 total all main exec php h s sand lh cut cpu
	total=$(stack_count "$f" '')
	all=$(stack_share "$f" '^php8\.2;_start;')
	# Of the samples in the engine's run of the script (zend_execute):
	# PHP's start-up and shutdown (its modules, compiling the script: 22%
	# of a launched run's samples under TCG, half on the debug kernel) run
	# no PHP frame, and a launched program's first moments come before the
	# recorder has its unwind rules (t_unwind_stripped, issue 28): the debug
	# kernel rooted 93% of the whole run, the script's part is judged here.
	exec=$(stack_count "$f" ';zend_execute;')
	main=$(awk -v a="$(stack_count "$f" '^php8\.2;_start;.*;zend_execute;')" -v b="$exec" \
		'BEGIN {printf "%d", b ? 100 * a / b : 0}')
	php=$(awk -v a="$(stack_count "$f" "^php8\.2;_start;.*;zend_execute;$(fr '\{main\}');.*$(fr run)")" \
		-v b="$exec" 'BEGIN {printf "%d", b ? 100 * a / b : 0}')
	h=$(stack_count "$f" ";$(fr heavy)")
	s=$(stack_count "$f" ";$(fr sorter)")
	# C -> PHP -> C -> PHP: the comparator under usort's C, under sorter.
	sand=$(stack_count "$f" "$(fr sorter);.*;zend_call_function;(.*;)?$(fr cmp)")
	lh=$(leaf_share "$f" '^heavy \(' "known82.php:$(hot heavy))_[vm]")
	cut=$(stack_share "$f" 'vm stack cut')
	cpu=$(sed -n 's/^cpu_shares=\([0-9.\/]*\)$/\1/p' "$2")
	read -r sh ss <<<"$(awk -v a="$h" -v b="$s" 'BEGIN {t = a + b; if (!t) t = 1
		printf "%.1f %.1f", 100 * a / t, 100 * b / t}')"
	note "$3: $total samples (rooted at _start $all%), in zend_execute $exec: rooted $main%, under {main} and run $php%; heavy/sorter $sh/$ss (script's CPU split $cpu); comparator under usort's C in $(awk -v a=$sand -v b=$s 'BEGIN {printf "%d", b ? 100 * a / b : 0}')% of sorter's; heavy's leaf at its hot line $lh%; VM part cut $cut%"
	[ "$total" -ge 500 ] || fail "$3: too few samples"
	[ "$main" -ge 95 ] || fail "$3: under 95% of the script's samples rooted at _start"
	[ "$php" -ge 90 ] || fail "$3: under 90% of the script's samples under its {main} and run"
	[ -n "$cpu" ] || fail "$3: the script printed no CPU split"
	within 3 "$sh" "${cpu%%/*}" "$ss" "${cpu##*/}" ||
		fail "$3: heavy/sorter off the script's CPU split by more than 3 points"
	[ $((100 * sand)) -ge $((50 * s)) ] ||
		fail "$3: the comparator not under usort's C in half of sorter's samples"
	[ "$lh" -ge 90 ] || fail "$3: heavy's leaf at its hot line in under 90% of its samples"
	[ "$cut" -le 2 ] || fail "$3: more than 2% of VM stacks cut"
}
cd /tmp || exit 1
vmstack-record -F 999 -o /tmp/php.folded -- php8.2 "$script" $((4 * span)) 2>/tmp/php.err ||
	{ cat /tmp/php.err; fail "record failed"; }
cat /tmp/php.err
grep -q 'VM frames merged (PHP 8.2' /tmp/php.err || fail "PHP 8.2 not detected"
awk '{print $NF, $0}' /tmp/php.folded | sort -nr | head -3 | cut -c1-600
cp /tmp/php.folded "$VMSTACK_RESULTS/"
check /tmp/php.folded /tmp/php.err "started"

php8.2 "$script" $((8 * span)) 2>/tmp/phpa.out &
pid=$!
sleep $((1 * scale))
vmstack-record -q -F 999 -d $((4 * span)) -p $pid -o /tmp/phpa.folded 2>/tmp/phpa.err ||
	{ cat /tmp/phpa.err; fail "attach failed"; }
wait $pid
cp /tmp/php.folded /tmp/phpa.folded "$VMSTACK_RESULTS/"
# The split the script printed covers its whole run, the recording a part
# of it in the same steady loop.
check /tmp/phpa.folded /tmp/phpa.out "attached"
