# Sourced by guest programs (scripts/guest-bench, scripts/guest-fgraph),
# after scripts/lib/stats.sh:
# the in-kernel time per sample of a profiler, measured by the kernel's
# function_graph tracer on the perf overflow path. vmstack's handler and
# perf's own callchain + output both run below __perf_event_overflow, so
# one traced function times both tools with the same clock in the same
# boot. Only that function is traced (set_ftrace_filter) and only at depth
# 1 (max_graph_depth): the tracer's cost is one entry and one exit hook per
# sample whichever tool runs, and fg_run checks that (calls per sample).

T=/sys/kernel/tracing
FG_FUNC=

fg_w() { echo "$2" >"$T/$1"; }

# Pick the traced function and set the tracer up; prints why not, fails.
fg_init() {
	local f
	[ -e "$T/trace" ] || mount -t tracefs nodev "$T" 2>/dev/null
	[ -e "$T/available_filter_functions" ] || { echo "fgraph: no tracefs"; return 1; }
	grep -qw function_graph "$T/available_tracers" || { echo "fgraph: no function_graph tracer"; return 1; }
	# __perf_event_overflow is static: if the compiler inlined it into
	# its callers, perf_swevent_hrtimer (the cpu-clock event's timer,
	# which calls it for both tools) is the closest traced caller.
	for f in __perf_event_overflow perf_swevent_hrtimer; do
		if grep -qx "$f" "$T/available_filter_functions"; then
			FG_FUNC=$f
			break
		fi
	done
	[ -n "$FG_FUNC" ] || { echo "fgraph: no traceable overflow function"; return 1; }
	fg_w tracing_on 0
	fg_w current_tracer nop
	fg_w set_ftrace_filter "$FG_FUNC"
	fg_w set_graph_function ""
	fg_w max_graph_depth 1
	# 10 kHz for a few seconds on 2 CPUs: keep every event.
	fg_w buffer_size_kb 16384
	# Plain durations (no '+'/'!' marks) and the task's name, to keep the
	# samples of the workload only.
	fg_w options/funcgraph-overhead 0
	fg_w options/funcgraph-proc 1
	fg_w options/funcgraph-irqs 1
	fg_w current_tracer function_graph
	fg_w trace ""
}

fg_done() {
	fg_w tracing_on 0
	fg_w current_tracer nop
	fg_w set_ftrace_filter ""
	fg_w max_graph_depth 0
	fg_w buffer_size_kb 1408
}

# fg_run OUT COMM CMD...: run CMD with tracing on; the durations (ns) of
# the traced calls made while a task named COMM was current go to OUT, one
# a line. FG_CALLS: their count; FG_OTHER: calls in other tasks (none is
# expected); FG_NESTED: lines that are not a complete depth-1 call
# (nested or split entries; none is expected); FG_LOST: events the ring
# buffer overwrote.
fg_run() {
	local out=$1 comm=$2
	shift 2
	fg_w trace ""
	fg_w tracing_on 1
	"$@"
	fg_w tracing_on 0
	# " 1)  calltree-123  |   4.321 us    |  __perf_event_overflow();"
	awk -v f="$FG_FUNC" -v comm="$comm" -v out="$out" '
		/^#/ || !NF { next }
		index($0, f "();") {
			if (!match($0, /[0-9]+\.[0-9]+ us/)) { nested++; next }
			us = substr($0, RSTART, RLENGTH - 3)
			split($0, a, "|"); task = a[1]; sub(/^ *[0-9]+\) +/, "", task)
			sub(/-[0-9]+ *$/, "", task)
			# The task column holds 7 characters of its name.
			if (task != substr(comm, 1, 7)) { other++; next }
			printf "%d\n", us * 1000 >out; calls++; next
		}
		{ nested++ }
		END { printf "%d %d %d\n", calls, other, nested }' "$T/trace" >/tmp/fg.count
	read -r FG_CALLS FG_OTHER FG_NESTED </tmp/fg.count
	FG_LOST=$(cat "$T"/per_cpu/cpu*/stats | awk '/^overrun:/ {n += $2} END {print n + 0}')
}

# Median and p99 (ns) of a file of durations: "MEDIAN P99" ("0 0" for
# none).
fg_stats() {
	[ -s "$1" ] || { echo "0 0"; return; }
	echo "$(median <"$1") $(p99 <"$1")"
}
