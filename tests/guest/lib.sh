# Helpers for guest tests: source it. A test passes by exiting 0.
set -u
fail() {
	echo "FAIL: $*"
	exit 1
}
note() { echo "# $*"; }
# The debug kernel (KASAN, lockdep) under TCG runs about ten times slower:
# waits stretch by VMSTACK_TIME_SCALE (tests/guest/run sets it).
scale=${VMSTACK_TIME_SCALE:-1}
# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
	local limit=$(($1 * scale)) i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ $i -gt $((limit * 10)) ] && return 1
		sleep 0.1
	done
}
