# Another user cannot read or map a session's rings: the session fd cannot
# be opened through /proc by another user, and root cannot reopen it either
# (an anonymous inode: ENXIO), or, if it could, would get a file that
# carries no session and refuses mmap.
. tests/guest/lib.sh
build/workloads/calltree $((5 * scale)) &
pid=$!
vmstack-record -q -p $pid -o /dev/null &
rec=$!
wait_until 5 sh -c "vmstack status | grep -q '^sessions: 1$'" || fail "session did not start"
fd=$(for f in /proc/$rec/fd/*; do [ "$(readlink $f)" = "anon_inode:[vmstack]" ] && echo $f; done | head -1)
note "session fd: $fd"
[ -n "$fd" ] || fail "no session fd found"
setpriv --reuid=65534 --regid=65534 --clear-groups cat "$fd" 2>/tmp/acc.err && fail "another user opened the session fd"
cat /tmp/acc.err
python3 - "$fd" <<'PY' || fail "a reopened session file could be mapped"
import mmap, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDWR)
except OSError as e:
    print("reopening the session fd refused:", e)
    sys.exit(0)
try:
    mmap.mmap(fd, 4096 * 65 * os.cpu_count(), mmap.MAP_SHARED)
except OSError as e:
    print("mmap of the reopened file refused:", e)
    sys.exit(0)
sys.exit(1)
PY
kill $rec $pid
wait 2>/dev/null
true
