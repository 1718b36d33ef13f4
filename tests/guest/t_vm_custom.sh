# A custom VM (tests/workloads/tinyvm) that registers its own descriptor
# through libvmstack: its script frames appear between its native frames,
# in the known call tree, at the known 1:2 split of CPU time. The run
# stretches by span (lib.sh): the loader's start-up is no part of the tree
# and takes longer on the debug kernel (at 4 s there, 88-94% in the tree).
. tests/guest/lib.sh
vmstack-record -F 999 -o /tmp/tv.folded -- build/workloads/tinyvm $((4 * span)) 2>/tmp/tv.err ||
	{ cat /tmp/tv.err; fail "record failed"; }
cat /tmp/tv.err
cp /tmp/tv.folded "$VMSTACK_RESULTS/"
grep -q 'VM frames merged (tinyvm)' /tmp/tv.err || fail "the VM's registration was not read"
[ ! -e /tmp/vmstack-*.vm ] || fail "the registration file outlived the VM"
sort -k2 -nr /tmp/tv.folded | head -3 | cut -c1-300
total=$(awk '{s += $NF} END {print s+0}' /tmp/tv.folded)
share() { stack_share /tmp/tv.folded "$1"; }
root=';main;run_forever;tv_call;tv:main_\[vm\];tv:work_\[vm\];'
a=$(share "${root}spin_a;")
b=$(share "${root}bridge;tv_call;tv:inner_\[vm\];tv:leaf_\[vm\];spin_b;")
cut=$(share 'vm stack cut')
note "$total samples: main;...;spin_a $a%, main;...;bridge;tv_call;...;spin_b $b% (expected 33/67 of them), VM part cut $cut%"
[ "$total" -ge 500 ] || fail "too few samples"
[ $((a + b)) -ge 90 ] || fail "under 90% of samples in the known call tree"
awk -v a=$a -v b=$b 'BEGIN {d = 100 * b / (a + b) - 66.7; exit !(d * d < 25)}' ||
	fail "spin_b's share is off 2/3 by more than 5 points"

# The same descriptor given by hand (--vm FILE), attached to a running VM;
# a wrong file is refused with the line at fault.
build/workloads/tinyvm $((8 * scale)) &
pid=$!
wait_until 5 test -e /tmp/vmstack-$pid.vm || fail "no registration file"
cp /tmp/vmstack-$pid.vm /tmp/tv.vm
vmstack-record -q --vm /tmp/tv.vm -F 999 -d 3 -p $pid -o /tmp/tvf.folded 2>/tmp/tvf.err ||
	{ cat /tmp/tvf.err; fail "--vm FILE"; }
kill $pid
wait $pid 2>/dev/null
rm -f /tmp/vmstack-$pid.vm
cat /tmp/tvf.err
grep -q 'VM frames merged (tinyvm)' /tmp/tvf.err || fail "--vm FILE: descriptor not registered"
n=$(grep -E "${root}bridge;tv_call;tv:inner_\[vm\];tv:leaf_\[vm\];spin_b;" /tmp/tvf.folded |
	awk '{s += $NF} END {print s+0}')
note "--vm FILE, attached: $n samples in the known spin_b chain"
[ "$n" -ge 100 ] || fail "--vm FILE: VM frames missing"
printf 'vmstack-vm 2\nbogus 1\nend\n' >/tmp/bad.vm
vmstack-record -q --vm /tmp/bad.vm -d 1 -p $$ -o /dev/null 2>/tmp/bad.err &&
	fail "a bad descriptor file was accepted"
cat /tmp/bad.err
grep -q 'line 2' /tmp/bad.err || fail "a bad descriptor file's error names no line"
