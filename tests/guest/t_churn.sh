# Threads and child processes come and go quickly while sampling: the
# target's threads are sampled, its children are not, the kernel is clean.
. tests/guest/lib.sh
vmstack-record -q --per-thread -o /tmp/churn.folded -- build/workloads/churn 3 2>/tmp/churn.err ||
	{ cat /tmp/churn.err; fail "record failed"; }
cat /tmp/churn.err
tids=$(cut -d';' -f1 /tmp/churn.folded | sort -u | wc -l)
note "distinct threads sampled: $tids"
[ "$tids" -gt 20 ] || fail "short-lived threads were not sampled"
