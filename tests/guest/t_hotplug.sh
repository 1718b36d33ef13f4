# CPU 1 goes offline for a second and comes back mid-session: sampling
# resumes on it, and the time it was off is counted.
. tests/guest/lib.sh
[ -e /sys/devices/system/cpu/cpu1/online ] ||
	fail "no CPU 1 to take offline (present: $(cat /sys/devices/system/cpu/present), online: $(cat /sys/devices/system/cpu/online))"
build/workloads/threads 0 $((6 * scale)) &
pid=$!
sleep 0.3
vmstack-probe hotplug $pid 1
rc=$?
echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
kill $pid
wait $pid 2>/dev/null
[ $rc = 0 ] || fail "sampling did not resume on CPU 1, or the gap was not counted"
