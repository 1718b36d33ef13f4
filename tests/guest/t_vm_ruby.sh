# Ruby 3.1 (Debian's ruby3.1 and libruby-3.1.so.3.1, unmodified; built
# without YJIT): a script with a known call tree, started by the recorder
# and attached to while it runs. Ruby frames ("label (file:LINE)") sit
# between native frames, rooted at _start; C yields back into Ruby
# (sort_by's block: sorter -> sort_by's C -> rb_vm_exec -> block in
# sorter); heavy and sorter share the CPU as the script's own thread CPU
# clock says, within 3 points; heavy's leaf is at its hot line. Two Ruby
# threads each show their own frames. --disable-gems: RubyGems' start-up
# (seconds under TCG) is not what is measured.
. tests/guest/lib.sh
. tests/guest/known_tree.sh
script=$VMSTACK_REPO/tests/workloads/ruby/known31.rb
hot() { grep -n "# HOT $1" "$script" | cut -d: -f1; }
fr() { echo "$1 \([^;]*known31\.rb:[0-9]+\)_\[vm\]"; }
# The debug kernel had 84% of the whole run under <main> and run.
kt_prog='ruby3\.1' kt_engine=rb_vm_exec kt_main='<main>' kt_min=85
kt_cb_c=rb_vm_exec kt_cb='block in sorter' kt_cb_is="block under sort_by's C" kt_file=known31.rb
cd /tmp || exit 1
vmstack-record -F 999 -o /tmp/rb.folded -- ruby3.1 --disable-gems "$script" $((4 * span)) 2>/tmp/rb.err ||
	{ cat /tmp/rb.err; fail "record failed"; }
cat /tmp/rb.err
grep -q 'VM frames merged (Ruby 3.1' /tmp/rb.err || fail "Ruby 3.1 not detected"
awk '{print $NF, $0}' /tmp/rb.folded | sort -nr | head -3 | cut -c1-600
known_tree_check /tmp/rb.folded /tmp/rb.err "started"

ruby3.1 --disable-gems "$script" $((8 * span)) 2>/tmp/rba.out &
pid=$!
sleep $((1 * scale))
vmstack-record -q -F 999 -d $((4 * span)) -p $pid -o /tmp/rba.folded 2>/tmp/rba.err ||
	{ cat /tmp/rba.err; fail "attach failed"; }
wait $pid
cp /tmp/rb.folded /tmp/rba.folded "$VMSTACK_RESULTS/"
# The split the script printed covers its whole run, the recording a part
# of it in the same steady loop.
known_tree_check /tmp/rba.folded /tmp/rba.out "attached"

# Two Ruby threads on one CPU (as t_cpython's threads: TCG's timers favour
# one vCPU), taking turns on the GVL: each thread's samples show its own
# frames (its own ruby_current_ec), under the block Thread.new runs, from
# the thread's start; the split as the threads' own CPU clocks say.
vmstack-record -F 999 -o /tmp/rbt.folded -- taskset -c 0 ruby3.1 --disable-gems "$script" $((4 * span)) threads \
	2>/tmp/rbt.err || { cat /tmp/rbt.err; fail "threads: record failed"; }
cat /tmp/rbt.err
cp /tmp/rbt.folded "$VMSTACK_RESULTS/"
f=/tmp/rbt.folded
a=$(stack_count $f ";$(fr work_a)")
b=$(stack_count $f ";$(fr work_b)")
both=$(stack_count $f ";$(fr work_a).*;$(fr work_b)|;$(fr work_b).*;$(fr work_a)")
ra=$(stack_count $f ";clone3;start_thread;.*;$(fr 'block in threads');$(fr work_a)")
rb=$(stack_count $f ";clone3;start_thread;.*;$(fr 'block in threads');$(fr work_b)")
cpu=$(sed -n 's/^threads cpu_shares=\([0-9.\/]*\)$/\1/p' /tmp/rbt.err)
read -r s1 s2 <<<"$(awk -v a="$a" -v b="$b" 'BEGIN {t = a + b; if (!t) t = 1
	printf "%.1f %.1f", 100 * a / t, 100 * b / t}')"
note "threads: work_a/work_b $s1/$s2 (the threads' CPU clocks $cpu); under the thread's start and its block: work_a $((a ? 100 * ra / a : 0))% work_b $((b ? 100 * rb / b : 0))%; samples with both threads' frames $both"
[ $((a + b)) -ge 300 ] || fail "threads: too few samples"
[ "$both" -eq 0 ] || fail "threads: a stack mixes two threads' frames"
[ $((100 * ra)) -ge $((95 * a)) ] && [ $((100 * rb)) -ge $((95 * b)) ] ||
	fail "threads: under 95% under the thread's start and its block"
[ -n "$cpu" ] || fail "threads: the script printed no CPU split"
within 3 "$s1" "${cpu%%/*}" || fail "threads: shares off the threads' CPU clocks by more than 3 points"
