# The module answers a status request over netlink, speaking the tools' ABI
# (major.minor, the same as vmstack --version's).
. tests/guest/lib.sh
out=$(vmstack status) || fail "vmstack status failed"
echo "$out"
abi=$(vmstack --version | sed -n 's/.*(ABI \([0-9]*\.[0-9]*\))$/\1/p')
note "tools' ABI: $abi"
[ -n "$abi" ] || fail "--version names no ABI"
echo "$out" | grep -qx "abi: $abi" || fail "the module's ABI is not the tools' ($abi)"
echo "$out" | grep -q '^sessions: 0$' || fail "sessions should be 0"
# The count is per network namespace: a session open here is not counted
# in another one (a container's network namespace learns nothing of the
# host's sessions).
build/workloads/calltree $((4 * scale)) &
pid=$!
vmstack-probe hold $pid $((2 * scale)) >/dev/null &
holder=$!
wait_until 5 sh -c 'vmstack status | grep -q "^sessions: [1-9]"' || fail "the open session is not counted"
other=$(unshare -n vmstack status) || fail "vmstack status failed in a new network namespace"
echo "$other" | grep '^sessions'
wait $holder
kill $pid 2>/dev/null
wait $pid 2>/dev/null
echo "$other" | grep -q '^sessions: 0$' || fail "another network namespace counts this one's sessions"
