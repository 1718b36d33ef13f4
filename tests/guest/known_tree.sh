# The checks t_vm_php and t_vm_ruby make of a recording of their script
# with a known call tree (tests/workloads/php/known82.php,
# tests/workloads/ruby/known31.rb): source it after lib.sh. The two
# interpreters differ only in the names below, which the test sets first:
#   kt_prog    the program's frame at the stack's root (an ERE: 'php8\.2')
#   kt_engine  the C function that runs the script (zend_execute)
#   kt_main    the script's outermost frame (an ERE: '\{main\}')
#   kt_min     the least share (%) of the engine's samples under kt_main and run
#   kt_cb_c    the C function the callback runs under (zend_call_function)
#   kt_cb      the callback sorter hands to C (cmp)
#   kt_cb_is   the callback in messages ("comparator under usort's C")
#   kt_file    the script's file name (known82.php)
# and fr FUNCTION (the ERE of a script frame) and hot FUNCTION (its hot line).
#
# known_tree_check FOLDED ERRFILE LABEL: the recording FOLDED, the
# script's stderr ERRFILE (its cpu_shares= line), LABEL in messages.
known_tree_check() {
	local f=$1 total all engine main run h s sand lh cut cpu sh ss
	total=$(stack_count "$f" '')
	all=$(stack_share "$f" "^$kt_prog;_start;")
	# Of the samples in the engine's run of the script: the interpreter's
	# start-up and shutdown (its modules, compiling the script: 22% of a
	# launched PHP's samples under TCG, half on the debug kernel) run no
	# frame of the script, and a launched program's first moments come
	# before the recorder has its unwind rules (t_unwind_stripped, issue
	# 28): the debug kernel rooted 93% of the whole run, the script's part
	# is judged here.
	engine=$(stack_count "$f" ";$kt_engine;")
	main=$(awk -v a="$(stack_count "$f" "^$kt_prog;_start;.*;$kt_engine;")" -v b="$engine" \
		'BEGIN {printf "%d", b ? 100 * a / b : 0}')
	run=$(awk -v a="$(stack_count "$f" "^$kt_prog;_start;.*;$kt_engine;.*$(fr "$kt_main");.*$(fr run)")" \
		-v b="$engine" 'BEGIN {printf "%d", b ? 100 * a / b : 0}')
	h=$(stack_count "$f" ";$(fr heavy)")
	s=$(stack_count "$f" ";$(fr sorter)")
	# C -> script -> C -> script: the callback under the C that sorts, under sorter.
	sand=$(stack_count "$f" "$(fr sorter);.*;$kt_cb_c;(.*;)?$(fr "$kt_cb")")
	lh=$(leaf_share "$f" '^heavy \(' "$kt_file:$(hot heavy))_[vm]")
	cut=$(stack_share "$f" 'vm stack cut')
	cpu=$(sed -n 's/^cpu_shares=\([0-9.\/]*\)$/\1/p' "$2")
	read -r sh ss <<<"$(awk -v a="$h" -v b="$s" 'BEGIN {t = a + b; if (!t) t = 1
		printf "%.1f %.1f", 100 * a / t, 100 * b / t}')"
	note "$3: $total samples (rooted at _start $all%), in $kt_engine $engine: rooted $main%, under ${kt_main//\\/} and run $run%; heavy/sorter $sh/$ss (script's CPU split $cpu); $kt_cb_is in $(awk -v a=$sand -v b=$s 'BEGIN {printf "%d", b ? 100 * a / b : 0}')% of sorter's; heavy's leaf at its hot line $lh%; VM part cut $cut%"
	[ "$total" -ge 500 ] || fail "$3: too few samples"
	[ "$main" -ge 95 ] || fail "$3: under 95% of the script's samples rooted at _start"
	[ "$run" -ge "$kt_min" ] || fail "$3: under $kt_min% of the script's samples under its ${kt_main//\\/} and run"
	[ -n "$cpu" ] || fail "$3: the script printed no CPU split"
	within 3 "$sh" "${cpu%%/*}" "$ss" "${cpu##*/}" ||
		fail "$3: heavy/sorter off the script's CPU split by more than 3 points"
	[ $((100 * sand)) -ge $((50 * s)) ] ||
		fail "$3: the ${kt_cb_is/ under / not under } in half of sorter's samples"
	[ "$lh" -ge 90 ] || fail "$3: heavy's leaf at its hot line in under 90% of its samples"
	[ "$cut" -le 2 ] || fail "$3: more than 2% of VM stacks cut"
}
