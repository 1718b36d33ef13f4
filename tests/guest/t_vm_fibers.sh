# Fibers in Ruby 3.1 and PHP 8.2 (Debian's ruby3.1 and php8.2, as in
# t_vm_ruby and t_vm_php): a script that works inside a fiber (directly,
# and in a callback of C the fiber calls: sort_by, usort) and in its main
# code while the fiber is suspended, started by the recorder. A sample in
# the fiber shows the fiber's frames down to its block or closure and no
# frame of the code that resumed it (those are not on the fiber's stacks);
# a sample in the main code shows its frames and none of the suspended
# fiber's; the split between them is the script's own measure, within 3
# points. The unit tests *_live_fiber* check the same walks on stopped
# processes; this checks them with the module, the fibers' own C stacks
# unwound by it.
. tests/guest/lib.sh
cd /tmp || exit 1

# fiber_check NAME FOLDED ERRFILE BOTTOM: the checks on recording FOLDED
# of runtime NAME, the script's stderr ERRFILE, BOTTOM the ERE of the
# fiber's outermost frame with the in_fiber frame it calls.
fiber_check() {
	local f=$2 fw fok fbad rw rok rbad inf cut cpu sf sr
	fw=$(stack_count "$f" ";$(fr fiber_work)")
	fok=$(stack_count "$f" ";$4;.*$(fr fiber_work)")
	fbad=$(stack_count "$f" "(;$(fr drive)|;$(fr "$main")).*;$(fr fiber_work)")
	rw=$(stack_count "$f" ";$(fr root_work)")
	rok=$(stack_count "$f" ";$(fr "$main");$(fr drive);$(fr root_work)")
	rbad=$(stack_count "$f" ";$(fr in_fiber).*;$(fr root_work)")
	inf=$(stack_count "$f" ";$(fr in_fiber)")
	cut=$(stack_share "$f" 'vm stack cut')
	cpu=$(sed -n 's/^cpu_shares=\([0-9.\/]*\)$/\1/p' "$3")
	read -r sf sr <<<"$(awk -v a="$inf" -v b="$rw" 'BEGIN {t = a + b; if (!t) t = 1
		printf "%.1f %.1f", 100 * a / t, 100 * b / t}')"
	note "$1: fiber_work in $fw samples, $fok under the fiber's bottom, $fbad under the resumer's frames"
	note "$1: root_work in $rw samples, $rok under $main and drive, $rbad under the fiber's frames"
	note "$1: fiber/main $sf/$sr (the script's CPU measure $cpu); stacks cut: $cut%"
	note "$1: the roots of the fiber's stacks (their first frames):"
	grep -E ";$(fr fiber_work)" "$f" | cut -d';' -f1-4 | sort | uniq -c | sort -nr | head -3
	[ "$fw" -ge 100 ] && [ "$rw" -ge 100 ] || fail "$1: too few samples in fiber_work or root_work"
	[ "$fbad" -eq 0 ] || fail "$1: a sample in the fiber shows the resumer's frames"
	[ "$rbad" -eq 0 ] || fail "$1: a sample in the main code shows the suspended fiber's frames"
	[ $((100 * fok)) -ge $((95 * fw)) ] || fail "$1: fiber_work under the fiber's bottom in under 95%"
	[ $((100 * rok)) -ge $((95 * rw)) ] || fail "$1: root_work under $main and drive in under 95%"
	[ -n "$cpu" ] || fail "$1: the script printed no CPU split"
	within 3 "$sf" "${cpu%%/*}" || fail "$1: shares off the script's CPU measure by more than 3 points"
}

script=$VMSTACK_REPO/tests/workloads/ruby/fibers31.rb
fr() { echo "$1 \([^;]*fibers31\.rb:[0-9]+\)_\[vm\]"; }
main='<main>'
vmstack-record -F 999 -o /tmp/rbf.folded -- ruby3.1 --disable-gems "$script" $((4 * span)) 2>/tmp/rbf.err ||
	{ cat /tmp/rbf.err; fail "ruby: record failed"; }
cat /tmp/rbf.err
cp /tmp/rbf.folded "$VMSTACK_RESULTS/"
grep -q 'VM frames merged (Ruby 3.1' /tmp/rbf.err || fail "Ruby 3.1 not detected"
fiber_check ruby /tmp/rbf.folded /tmp/rbf.err "$(fr 'block in drive');$(fr in_fiber)"

script=$VMSTACK_REPO/tests/workloads/php/fibers82.php
fr() { echo "$1 \([^;]*fibers82\.php:[0-9]+\)_\[vm\]"; }
main='\{main\}'
vmstack-record -F 999 -o /tmp/phpf.folded -- php8.2 "$script" $((4 * span)) 2>/tmp/phpf.err ||
	{ cat /tmp/phpf.err; fail "php: record failed"; }
cat /tmp/phpf.err
cp /tmp/phpf.folded "$VMSTACK_RESULTS/"
grep -q 'VM frames merged (PHP 8.2' /tmp/phpf.err || fail "PHP 8.2 not detected"
fiber_check php /tmp/phpf.folded /tmp/phpf.err "$(fr '\{closure\}');$(fr in_fiber)"
