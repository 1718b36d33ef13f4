# A syscall-heavy workload: kernel frames sit on top of the user frames,
# and --no-kernel leaves them out.
. tests/guest/lib.sh
vmstack-record -q -o /tmp/sys.folded -- build/workloads/syscalls 2 || fail "record failed"
total=$(awk '{s += $NF} END {print s+0}' /tmp/sys.folded)
kern=$(grep -E ';main;[^ ]*read[^ ]*;.*_\[k\]' /tmp/sys.folded | awk '{s += $NF} END {print s+0}')
sort -k2 -nr /tmp/sys.folded | head -3
note "total $total, in the kernel below read: $kern"
[ $((100 * kern / total)) -ge 50 ] || fail "under half the samples show kernel frames below read"
grep -qE 'ksys_read_\[k\]|vfs_read_\[k\]' /tmp/sys.folded || fail "no read path in the kernel frames"
vmstack-record -q --no-kernel -o /tmp/sys-user.folded -- build/workloads/syscalls 1 || fail "record failed"
! grep -q '_\[k\]' /tmp/sys-user.folded || fail "--no-kernel still has kernel frames"
