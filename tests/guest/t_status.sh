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
