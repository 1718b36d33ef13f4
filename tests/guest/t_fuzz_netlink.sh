# Bad input never harms the kernel: random and mutated requests to the
# netlink family for a bounded time, each answered; many sessions at once.
. tests/guest/lib.sh
build/workloads/calltree 30 &
pid=$!
vmstack-probe fuzz ${VMSTACK_FUZZ_SECONDS:-15} 1 $pid || fail "fuzzer: requests went unanswered"
vmstack-probe fuzz 5 2 || fail "fuzzer (own pid): requests went unanswered"
vmstack-probe sessions $pid 64 || fail "64 sessions"
wait_until 5 sh -c "vmstack status | grep -q '^sessions: 0$'" || fail "sessions left behind"
kill $pid
wait $pid 2>/dev/null
true
