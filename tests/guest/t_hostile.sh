# A target that makes the handler work as hard as it can: all of user
# space declared VM code, every native frame's "VM frames" a chain of
# hidden frames to max_frames, at the maximum depth. The read budget cuts
# each sample (counted), the time budget bounds the handler, and its p99
# stays a small multiple of a plain 128-frame sample's (the bound is the
# read budget, VMSTACK_MAX_READS, about ten times the reads of a deep
# native walk). Before the budget: p50 3.7 ms, p99 46 ms under TCG.
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
