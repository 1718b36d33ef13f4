# A target that makes the handler work as hard as it can: all of user
# space declared VM code, every native frame's "VM frames" a chain of
# hidden frames to max_frames, at the maximum depth. The read budget or
# the walk's deadline (VMSTACK_WALK_MAX_NS) cuts each sample (counted),
# the time budget bounds the handler per CPU, and its p99 stays a small
# multiple of a plain 128-frame sample's. Before the budget: p50 3.7 ms,
# p99 46 ms under TCG.
. tests/guest/lib.sh
build/workloads/deep 3000 $((12 * scale)) &
pid=$!
sleep 0.5
vmstack-probe hostile $pid 3 | tee /tmp/hostile.txt
rc=${PIPESTATUS[0]}
kill $pid
wait $pid 2>/dev/null
[ $rc = 0 ] || fail "the read budget never cut a hostile walk"
ratio=$(sed -n 's/^hostile: p99 ratio \(.*\)$/\1/p' /tmp/hostile.txt)
note "hostile p99 / plain p99: $ratio"
awk -v r="$ratio" 'BEGIN {exit !(r > 0 && r <= 30)}' || fail "a hostile sample costs over 30 plain ones"

# Reads that fault cost far more than reads that succeed. A process of
# the caller's own, 600 frames of frame pointers, walked to 512 frames
# with no unwind rules: every frame is a candidate for compiled code, and
# four descriptors whose JIT anchor is a pointer variable at an unmapped
# address (issue 27: each of ~2,000 anchor reads per sample faulted,
# p99 3.7 ms against 164 us without them). The handler's p99 must stay
# within 3 times the same process's without descriptors, its worst
# sample within 3 times the worst (or 1 ms), and the kernel must not lower
# its sample rate.
vmfile=/tmp/hostile-faults.vm
: >$vmfile
for i in 1 2 3 4; do
	cat >>$vmfile <<VM
vmstack-vm 3
name faults$i
code_start 0x1000
code_end 0x2000
state_from none
top_reg rbp
link pointer
max_frames 1
flags jit
jit_reg none
jit_anchor_ptr 0x$((3 + i))000
end
VM
done
worst() { sed -n 's/.*handler: p50 [0-9]* ns, p99 \([0-9]*\) ns, max \([0-9]*\) ns.*/\1 \2/p' "$1"; }
# One round: both recordings, then the bounds; $why says why one failed.
faults_round() {
	local vm out rate0 rate1 plain_p99 plain_max fault_p99 fault_max
	rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	for vm in none $vmfile; do
		out=/tmp/hostile-faults-$(basename $vm).err
		vmstack-record -q --stats --unwind fp --max-depth 512 --vm $vm -o /dev/null -- \
			build/workloads/deep 600 $((3 * span)) 2>$out || { cat $out; fail "record --vm $vm failed"; }
		grep -E 'handler:|samples' $out
	done
	read plain_p99 plain_max <<<"$(worst /tmp/hostile-faults-none.err)"
	read fault_p99 fault_max <<<"$(worst /tmp/hostile-faults-hostile-faults.vm.err)"
	rate1=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	note "faulting anchors: p99 $fault_p99 ns, max $fault_max ns; without descriptors: p99 $plain_p99 ns, max $plain_max ns; perf_event_max_sample_rate $rate0 -> $rate1"
	[ -n "$fault_max" ] && [ -n "$plain_max" ] || fail "no handler times in --stats"
	[ "$rate1" = "$rate0" ] || fail "the kernel lowered perf_event_max_sample_rate"
	# Twice the ordinary p99 is the VM lookup a registered descriptor adds
	# to each frame under TCG; the worst sample is also the host's (a vCPU
	# descheduled mid-sample), hence "or under 1 ms" beside twice the worst,
	# a time that stretches with the kernel's (lib.sh's scale: the debug
	# kernel's faulting reads took up to 2.6 ms, its plain worst 0.9 ms).
	awk -v f="$fault_p99" -v p="$plain_p99" 'BEGIN {exit !(f <= 3 * p)}' || {
		why="the p99 with faulting anchors ($fault_p99 ns) is over 3 times the plain one ($plain_p99 ns)"
		return 1
	}
	# A faulting sample's ordinary cost is already twice a plain one's
	# (p50 491,520 against 262,144 ns): twice the worst failed a clean
	# run at 1,310,720 against 524,288 ns in both rounds (2.29 and 2.50
	# times), and a maximum of some 2,000 samples is the host's as much as
	# ours: 4 times. Issue 27's fault was 20 times.
	awk -v f="$fault_max" -v p="$plain_max" -v s="$scale" 'BEGIN {exit !(f <= 4 * p || f <= 1000000 * s)}' || {
		why="a sample with faulting anchors took $fault_max ns, over 4 times the worst plain one ($plain_max ns) and over $scale ms"
		return 1
	}
}
# A busy host can deschedule the guest's vCPU inside one sample: a second
# round decides, and the first one's figures stay in the log.
if ! faults_round; then
	note "round 1: $why; round 2 decides"
	faults_round || fail "$why"
fi
