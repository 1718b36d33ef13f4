# A handler running on a signal frame: its stacks continue through the
# kernel's signal frame (libc's __restore_rt, a signal-trampoline rule)
# into the interrupted main_loop and down to main.
. tests/guest/lib.sh
vmstack-record -q -o /tmp/sig.folded -- build/workloads/signals 2 || fail "record failed"
sort -k2 -nr /tmp/sig.folded | head -4
in_handler=$(grep ';on_alarm;handler_spin ' /tmp/sig.folded | awk '{s += $NF} END {print s+0}')
through=$(grep -E ';main;main_loop;(.*;)?on_alarm;handler_spin ' /tmp/sig.folded | awk '{s += $NF} END {print s+0}')
note "samples in the handler: $in_handler, of which through the signal frame to main: $through"
[ "$in_handler" -gt 100 ] || fail "too few samples in the handler"
[ $((100 * through / in_handler)) -ge 90 ] || fail "handler stacks do not reach main_loop and main"
