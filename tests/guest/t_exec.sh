# The target execs another program: the same process is still sampled and
# the new program's frames are named (mappings are read again).
. tests/guest/lib.sh
sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done; exec build/workloads/calltree 2' &
pid=$!
vmstack-record -q -p $pid -o /tmp/exec.folded || fail "record failed"
wait $pid
grep -E ';hot_three;spin ' /tmp/exec.folded | head -2
grep -qE ';main;run;hot_three;spin ' /tmp/exec.folded || fail "frames after exec are not named"
