# Deep stacks at a high rate lose no samples at default settings (issue
# 32): the recorder sizes its rings and its drain period for the largest
# record the depth allows, and drains again at once after finding a ring
# over half full. A process 600 frames deep (256 kept, the default
# --max-depth), recorded at -F 4000 and -F 999: at most 1% lost in full
# rings (samples the handler's time budget drops are counted apart). And
# what lets it: the module wakes a reader sleeping in poll() when a ring is
# a quarter full (ABI 4.2), and not before (vmstack-probe wake: no timer),
# on default and on the smallest rings.
. tests/guest/lib.sh
err=/tmp/deep_rate.err
out=/tmp/deep_rate.folded
for hz in 4000 999; do
	vmstack-record -q --stats -F $hz -o $out -- build/workloads/deep 600 $((3 * span)) 2>$err ||
		{ cat $err; fail "record at -F $hz failed"; }
	cat $err
	read -r samples lost pct < <(sed -nE 's/.*: ([0-9]+) samples, ([0-9]+) lost \(([0-9.]+)%\).*/\1 \2 \3/p' $err)
	[ -n "${pct:-}" ] || fail "no summary at -F $hz"
	# Samples the handler's 25% time budget dropped are not the rings'
	# (the debug kernel's walk is slow enough to reach it at 4 kHz).
	throttled=$(sed -nE 's/.*: ([0-9]+) of the lost samples were dropped because the handler took.*/\1/p' $err)
	inring=$((lost - ${throttled:-0}))
	pct=$(awk -v l="$inring" -v s="$samples" 'BEGIN {printf "%.2f", 100 * l / (s + l)}')
	# The kernel's limit may be lower than the rate asked for.
	rate=$(sed -nE 's/.*sampling at ([0-9]+) Hz.*/\1/p' $err)
	rate=${rate:-$hz}
	# Every sample as deep as the cap: the largest records the depth allows.
	deepest=$(awk -F';' '{u = 0; for (i = 2; i <= NF; i++) if ($i !~ /_\[k\]/) u++; print u}' $out |
		sort -n | tail -1)
	note "-F $hz ($rate Hz): $samples samples, $lost lost, ${throttled:-0} of them by the time budget, $pct% in full rings; deepest user stack $deepest frames; $(grep -o 'rings: [^;]*' $err)"
	[ "$((samples + ${throttled:-0}))" -ge $((rate * span)) ] || fail "too few samples at -F $hz: $samples"
	[ "${deepest:-0}" -ge 250 ] || fail "stacks short of the depth cap at -F $hz: $deepest frames"
	awk -v p="$pct" 'BEGIN {exit !(p <= 1)}' || fail "$pct% of the samples lost in full rings at -F $hz"
done
build/workloads/deep 600 $((6 * span)) &
pid=$!
sleep 0.5
vmstack-probe wake $pid $((2 * span)) || fail "the reader was not woken by the rings' fill alone, or early"
# The smallest rings (4 pages, a mark of 4 KiB): a drained ring's next
# record and the pad before it can cross the mark at once (a record is up
# to 4,128 bytes: the ring holds three); 50 Hz leaves the reader about
# 60 ms to wake.
vmstack-probe wake $pid $((2 * span)) 4 50 || fail "small rings: the reader was not woken by the fill alone, or early"
kill $pid
wait $pid 2>/dev/null
true
