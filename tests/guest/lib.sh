# Helpers for guest tests: source it. A test passes by exiting 0.
set -u
fail() {
	echo "FAIL: $*"
	exit 1
}
note() { echo "# $*"; }
# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
	local limit=$1 i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ $i -gt $((limit * 10)) ] && return 1
		sleep 0.1
	done
}
