# Bad VM descriptors (unmapped addresses, cycles, absurd depths, wrong
# offsets, all of user space as "VM code") registered for a live LuaJIT
# sandwich: each is accepted or refused with a message; accepted ones give
# cut VM stacks and counters, never an oops, hang or warning.
. tests/guest/lib.sh
build/workloads/sandwich 40 &
pid=$!
sleep 0.5
vmstack-probe vmfuzz $pid ${VMSTACK_VMFUZZ_SECONDS:-15} 7 || fail "vmfuzz"
vmstack-probe vmfuzz $pid 5 8 || fail "vmfuzz (seed 8)"
kill $pid
wait $pid 2>/dev/null
vmstack status | grep -q '^sessions: 0$' || fail "sessions left behind"
