# The module answers a status request over netlink, speaking our ABI.
. tests/guest/lib.sh
out=$(vmstack status) || fail "vmstack status failed"
echo "$out"
echo "$out" | grep -q '^abi: 2\.0$' || fail "unexpected ABI line"
echo "$out" | grep -q '^sessions: 0$' || fail "sessions should be 0"
vmstack --version | grep -q 'ABI 2\.0' || fail "--version"
