# Bad VM descriptors (unmapped addresses, cycles, absurd depths, wrong
# offsets, all of user space as "VM code", JIT fields half garbage)
# registered for a live LuaJIT sandwich and a LuaJIT running traces: each
# is accepted or refused with a message; accepted ones give cut VM stacks
# and counters, never an oops, hang or warning.
. tests/guest/lib.sh
build/workloads/sandwich 40 &
pid=$!
sleep 0.5
vmstack-probe vmfuzz $pid ${VMSTACK_VMFUZZ_SECONDS:-15} 7 || fail "vmfuzz"
vmstack-probe vmfuzz $pid 5 8 || fail "vmfuzz (seed 8)"
kill $pid
wait $pid 2>/dev/null
# JIT on: trace code is looked up outside the VM's code, with fields
# half LuaJIT's and half garbage.
luajit "$VMSTACK_REPO/tests/workloads/lua/work.lua" 30 &
pid=$!
sleep 0.5
vmstack-probe vmfuzz $pid 5 9 || fail "vmfuzz (JIT on, seed 9)"
kill $pid
wait $pid 2>/dev/null
vmstack status | grep -q '^sessions: 0$' || fail "sessions left behind"
