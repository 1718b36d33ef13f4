# Bad targets and arguments get clear messages and meaningful exit codes.
. tests/guest/lib.sh
expect() {  # expect RC PATTERN CMD...
	local rc=$1 pat=$2 out
	shift 2
	out=$("$@" 2>&1)
	echo "[$?] $*: $out"
	[ "$(printf '%s' "$out" | grep -c -- "$pat")" -ge 1 ] || fail "'$*' did not say '$pat'"
	"$@" >/dev/null 2>&1
	[ $? = "$rc" ] || fail "'$*' exit code is not $rc"
}
expect 1 "no process with PID" vmstack-record -p 999999 -d 1
expect 1 "kernel thread" vmstack-record -p 2 -d 1
expect 2 "give one of -p PID, -a, --cgroup DIR and a command" vmstack-record
expect 2 "-F takes" vmstack-record -F 0 -p 1
expect 2 "--children follows a command" vmstack-record --children -p 1
expect 2 "ring-pages takes a power of 2" vmstack-record --ring-pages 6 -p 1
expect 2 "unknown format" vmstack-record --format nope -p 1
expect 1 "cannot run" vmstack-record -q -o /dev/null -- /nonexistent/cmd
vmstack-record --help | grep -q -- "--per-thread" || fail "--help"
