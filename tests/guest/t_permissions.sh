# Who may profile what (Documentation/reliability.md, "Threat model"):
# without CAP_PERFMON or CAP_SYS_ADMIN in the initial user namespace,
# nothing; with CAP_PERFMON alone, only a dumpable process of one's own
# user with no capability the caller lacks, as perf_event_open() allows.
# Status needs no privilege.
. tests/guest/lib.sh
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# nobody holding CAP_PERFMON and nothing else.
perfmon=("${nobody[@]}" --inh-caps=-all,+perfmon --ambient-caps=+perfmon)
# Targets that outlive the test (killed at its end): on the cloud lane,
# whose root is shared over virtiofs, starting each refused recorder took
# long enough that a 12 s target had exited ("no process with PID").
build/workloads/calltree $((120 * scale)) &
root_pid=$!
"${nobody[@]}" build/workloads/calltree $((120 * scale)) &
own_pid=$!
trap 'kill $root_pid $own_pid 2>/dev/null' EXIT
# Until setpriv has exec'd calltree, own_pid has changed uid and is not
# dumpable (refused for that reason, not the one each check is about).
wait_until 30 grep -qx calltree /proc/$own_pid/comm || fail "the targets did not start"
refused() {  # refused LABEL MESSAGE_PATTERN CMD...
	local label=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "$label: rc=$rc: $out"
	[ $rc = 1 ] || fail "$label: not refused"
	echo "$out" | grep -q -- "$pat" || fail "$label: unclear message"
}
refused "unprivileged" "permission denied: needs CAP_PERFMON" \
	"${nobody[@]}" vmstack-record -q -p $root_pid -d 1 -o /dev/null
refused "root in a user namespace" "permission denied" \
	unshare --user --map-root-user vmstack-record -q -p $root_pid -d 1 -o /dev/null
"${perfmon[@]}" sh -c 'grep ^CapEff /proc/self/status' | tee /tmp/caps.txt
grep -q 'CapEff:[[:space:]]*0000004000000000' /tmp/caps.txt ||
	fail "could not make a process with CAP_PERFMON alone"
refused "CAP_PERFMON, another user's process" "may not read the target's memory" \
	"${perfmon[@]}" vmstack-record -q -p $root_pid -d 1 -o /dev/null
"${perfmon[@]}" vmstack-record -q -p $own_pid -d 1 -o /tmp/own.folded 2>/tmp/own.err ||
	{ cat /tmp/own.err; fail "CAP_PERFMON, own dumpable process: refused"; }
n=$(awk '{s += $NF} END {print s+0}' /tmp/own.folded)
note "CAP_PERFMON, own process: $n samples"
[ "$n" -gt 100 ] || fail "CAP_PERFMON, own process: too few samples"
# A process of one's own user that holds a capability the caller lacks
# (an ambient CAP_NET_RAW): not the caller's to read, as ptrace's
# commoncap rule says (the target's capabilities within the caller's).
"${nobody[@]}" --inh-caps=-all,+net_raw --ambient-caps=+net_raw build/workloads/calltree $((120 * scale)) &
capped=$!
trap 'kill $root_pid $own_pid $capped 2>/dev/null' EXIT
wait_until 30 grep -qx calltree /proc/$capped/comm || fail "the capable target did not start"
grep -E '^Cap(Prm|Amb)' /proc/$capped/status
refused "CAP_PERFMON, own process with a capability the caller lacks" "may not read the target's memory" \
	"${perfmon[@]}" vmstack-record -q -p $capped -d 1 -o /dev/null
"${nobody[@]}" vmstack status >/dev/null || fail "status refused to an unprivileged user"
true
