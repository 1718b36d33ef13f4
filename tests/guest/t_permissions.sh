# Only CAP_PERFMON / CAP_SYS_ADMIN in the initial user namespace may start a
# session: an unprivileged user and root in a new user namespace get EPERM.
. tests/guest/lib.sh
build/workloads/calltree $((5 * scale)) &
pid=$!
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups vmstack-record -q -p $pid -d 1 -o /dev/null 2>&1)
rc=$?
echo "unprivileged: rc=$rc: $out"
[ $rc = 1 ] || fail "unprivileged user was not refused"
echo "$out" | grep -q "permission denied: needs CAP_PERFMON" || fail "unclear message"
out=$(unshare --user --map-root-user vmstack-record -q -p $pid -d 1 -o /dev/null 2>&1)
rc=$?
echo "userns root: rc=$rc: $out"
[ $rc = 1 ] || fail "root in a user namespace was not refused"
echo "$out" | grep -q "permission denied" || fail "unclear message"
# Status needs no privilege.
setpriv --reuid=65534 --regid=65534 --clear-groups vmstack status >/dev/null ||
	fail "status refused to an unprivileged user"
kill $pid
wait $pid 2>/dev/null
true
