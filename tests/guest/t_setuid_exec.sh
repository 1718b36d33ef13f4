# A target that execs a setuid binary mid-session stops being dumpable.
# Sampled through events on its threads (-p's default), it loses them
# then (perf removes them, as it ends perf -p there): no sample after the
# exec, and the recorder says why. Through one event per CPU
# (--cpu-events) its samples go on but no user memory of it is read,
# and they are counted and reported; so too when the setuid program
# makes itself dumpable again (its credentials are not the caller's).
. tests/guest/lib.sh
cp build/workloads/calltree /tmp/suid-calltree
chown root:root /tmp/suid-calltree
chmod 4755 /tmp/suid-calltree
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
perfmon=("${nobody[@]}" --inh-caps=-all,+perfmon --ambient-caps=+perfmon)
# exec_setuid NAME [OPTION]: record, with OPTION, a shell that spins as
# nobody, then becomes a setuid-root program; /tmp/suid.NAME.{folded,err}.
# (60,000 turns a scale: about 0.6 s here, 10 s on the debug kernel; 200
# samples are enough. 300,000 took 49 s there.)
exec_setuid() {
	local name=$1 pid rc
	shift
	"${nobody[@]}" sh -c "i=0; while [ \$i -lt $((60000 * scale)) ]; do i=\$((i + 1)); done; exec /tmp/suid-calltree $((3 * span)) >/dev/null" &
	pid=$!
	sleep 0.3
	"${perfmon[@]}" vmstack-record -q "$@" -p $pid -o /tmp/suid.$name.folded 2>/tmp/suid.$name.err
	rc=$?
	wait $pid
	cat /tmp/suid.$name.err
	[ $rc = 0 ] || fail "record ($name) failed"
	# The setuid program's own frames were never read.
	! grep -qE 'hot_three|cold_one' /tmp/suid.$name.folded || fail "user frames read after the setuid exec ($name)"
}
# Samples with user frames: the shell's, before the exec.
user_samples() { awk -F';' '{for (i = 2; i <= NF; i++) if ($i !~ /_\[k\]/) {n = $NF; sub(/.* /, "", n); s += n; next}} END {print s+0}' "$1"; }
unread() { sed -n 's/.*user stacks not read: \([0-9]*\) samples of a target no longer dumpable.*/\1/p' "$1"; }

exec_setuid thr
before=$(user_samples /tmp/suid.thr.folded)
total=$(awk '{s += $NF} END {print s+0}' /tmp/suid.thr.folded)
after=$(unread /tmp/suid.thr.err)
note "events on its threads: samples with user frames (the shell, before the exec) $before of $total; not read ${after:-0}"
[ "$before" -gt 200 ] || fail "the target was not sampled before the exec"
grep -q "exec'd suid-calltree with other effective ids" /tmp/suid.thr.err ||
	fail "the recorder did not say that the setuid exec ended the sampling"
# (One may land in the exec itself, between the new credentials and the
# removal of the events.)
[ "${after:-0}" -le 5 ] || fail "$after samples taken after the exec removed the events"

exec_setuid cpu --cpu-events
before=$(user_samples /tmp/suid.cpu.folded)
after=$(unread /tmp/suid.cpu.err)
note "one event per CPU: samples with user frames $before; not read after the exec: ${after:-0}"
[ "$before" -gt 200 ] || fail "the target was not sampled before the exec (--cpu-events)"
[ "${after:-0}" -gt 200 ] || fail "samples after the setuid exec were not counted as not read"
rm -f /tmp/suid-calltree

# A setuid program that makes itself dumpable again right after the exec
# (prctl): dumpable, but its credentials are root's, not the caller's, so
# its memory stays unread (a handler that watched dumpability alone read
# it again). The shell only sleeps before the exec: nearly every sample
# with user frames would be the setuid program's.
cp build/workloads/suid_dumpable /tmp/suid-dumpable
chown root:root /tmp/suid-dumpable
chmod 4755 /tmp/suid-dumpable
# The shell waits for the recorder's session before the exec: a fixed
# sleep was shorter than the attach on the debug kernel (0.5 s) and on a
# busy host (2 s); the exec came first and the attach was refused, rightly.
# It waits blocked on a FIFO, running no user code meanwhile (a polling
# loop's own samples had user frames: 136 on the debug kernel).
rm -f /tmp/suid-go
mkfifo -m 666 /tmp/suid-go
"${nobody[@]}" sh -c "read go </tmp/suid-go; exec /tmp/suid-dumpable $((3 * span))" &
pid=$!
# --no-inherit: this is about the process that runs the exec alone;
# --cpu-events: its samples after the exec are taken (see above).
"${perfmon[@]}" vmstack-record -q --no-inherit --cpu-events -p $pid -o /tmp/suid2.folded 2>/tmp/suid2.err &
rec=$!
wait_until 30 sh -c "vmstack status | grep -q '^sessions: 1$'" || fail "the recorder did not attach"
# Sessions start paused: a moment for the recorder to describe the target and resume.
sleep $scale
echo go >/tmp/suid-go
wait $rec
rc=$?
wait $pid
cat /tmp/suid2.err
rm -f /tmp/suid-dumpable /tmp/suid-go
[ $rc = 0 ] || fail "record of the dumpable setuid program failed"
read2=$(awk -F';' '{for (i = 2; i <= NF; i++) if ($i !~ /_\[k\]/) {n = $NF; sub(/.* /, "", n); s += n; next}} END {print s+0}' /tmp/suid2.folded)
unread2=$(sed -n 's/.*user stacks not read: \([0-9]*\) samples of a target no longer dumpable.*/\1/p' /tmp/suid2.err)
note "setuid program dumpable again: samples with user frames $read2, not read ${unread2:-0}"
[ "${unread2:-0}" -gt 200 ] || fail "the setuid program's samples were not counted as not read"
! grep -q suid_dumpable_spin /tmp/suid2.folded || fail "frames of the setuid program in the output"
# The samples with user frames are the shell's, starting and after the
# FIFO (25 and 55 on the debug kernel): under 5% of the program's. Read
# memory would put user frames in nearly all of them.
[ $((100 * read2)) -lt $((5 * unread2)) ] || fail "user memory of a setuid program that made itself dumpable was read"
