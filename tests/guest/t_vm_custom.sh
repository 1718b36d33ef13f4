# A custom VM (tests/workloads/tinyvm) that registers its own descriptor
# through libvmstack: its script frames appear between its native frames,
# in the known call tree, at the known 1:2 split of CPU time.
. tests/guest/lib.sh
vmstack-record -F 999 -o /tmp/tv.folded -- build/workloads/tinyvm 4 2>/tmp/tv.err ||
	{ cat /tmp/tv.err; fail "record failed"; }
cat /tmp/tv.err
cp /tmp/tv.folded "$VMSTACK_RESULTS/"
grep -q 'VM frames merged (tinyvm)' /tmp/tv.err || fail "the VM's registration was not read"
[ ! -e /tmp/vmstack-*.vm ] || fail "the registration file outlived the VM"
sort -k2 -nr /tmp/tv.folded | head -3 | cut -c1-300
total=$(awk '{s += $NF} END {print s+0}' /tmp/tv.folded)
share() { grep -E "$1" /tmp/tv.folded | awk -v t=$total '{s += $NF} END {printf "%d", t ? 100 * s / t : 0}'; }
root=';main;run_forever;tv_call;tv:main_\[vm\];tv:work_\[vm\];'
a=$(share "${root}spin_a;")
b=$(share "${root}bridge;tv_call;tv:inner_\[vm\];tv:leaf_\[vm\];spin_b;")
cut=$(share 'vm stack cut')
note "$total samples: main;...;spin_a $a%, main;...;bridge;tv_call;...;spin_b $b% (expected 33/67 of them), VM part cut $cut%"
[ "$total" -ge 500 ] || fail "too few samples"
[ $((a + b)) -ge 90 ] || fail "under 90% of samples in the known call tree"
awk -v a=$a -v b=$b 'BEGIN {d = 100 * b / (a + b) - 66.7; exit !(d * d < 25)}' ||
	fail "spin_b's share is off 2/3 by more than 5 points"
