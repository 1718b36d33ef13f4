# Attach to an unmodified, already running /usr/bin/luajit (stripped, no
# frame pointers; JIT off, traces are not supported yet): its Lua frames are
# merged and named (a function called from Lua as LuaJIT's debug.getinfo
# names it), and the per-function shares of the leaf Lua function agree
# with the script's own account of its CPU time ("timed") within 4
# standard deviations of the share (at least 3 points); jit.p's figures
# beside them (under QEMU its 10 ms timer gave fib 7% where the script
# timed 10-12%, debug kernel; t_vm_luajit_jit sees the same: 14 against
# 17). fib is defined at work.lua:3, loop_sum at work.lua:8.
. tests/guest/lib.sh
script=$VMSTACK_REPO/tests/workloads/lua/work.lua
cd /tmp || exit 1
luajit -joff "$script" 6 timed 2>/tmp/lj-timed.txt &
pid=$!
sleep 1
vmstack-record -q -p $pid -d 3 -o /tmp/lj.folded 2>/tmp/lj.err || { cat /tmp/lj.err; fail "record failed"; }
wait $pid
cat /tmp/lj.err /tmp/lj-timed.txt
cp /tmp/lj.folded "$VMSTACK_RESULTS/"
sort -k2 -nr /tmp/lj.folded | head -3 | cut -c1-300
grep -qE "$(lua_frame 'work\.lua' 3)" /tmp/lj.folded || fail "no Lua frames of fib"
# fib and loop_sum named as LuaJIT's debug.getinfo names them (a local,
# an upvalue in fib's own calls), as jit.p's names are.
lua_names_match /tmp/lj.folded work.lua "attached" "$(lua_getinfo_names luajit "$script" 0.2)"
# The leaf-most Lua function of each sample, as jit.p's default mode counts,
# among the samples in fib or loop_sum (the two the script times).
lua='work\.lua:(3|8)\)?_\[vm\]$'
vm_fib=$(leaf_share /tmp/lj.folded "$lua" '/work.lua:3_[vm]')
vm_loop=$(leaf_share /tmp/lj.folded "$lua" '/work.lua:8_[vm]')
# jit.p's default interval, 10 ms: some 300 samples, whose spread alone
# is 2 points at fib's share. At 1 ms (-jp=fi1) it gave fib 3% against
# vmstack's 11% under QEMU (a timer that often costs more than it
# samples); on the host fi1 and the default agree.
luajit -joff -jp=f "$script" 3 >/tmp/jp.txt 2>&1
cat /tmp/jp.txt
jp_fib=$(jitp_share /tmp/jp.txt fib)
jp_loop=$(jitp_share /tmp/jp.txt loop_sum)
t_fib=$(awk '$1 == "timed" {sub(/%/, "", $3); print $3}' /tmp/lj-timed.txt)
t_loop=$(awk '$1 == "timed" {sub(/%/, "", $5); print $5}' /tmp/lj-timed.txt)
n=$(stack_count /tmp/lj.folded 'work\.lua:(3|8)\)?_\[vm\]')
tol=$(awk -v p="${t_fib:-0}" -v n="$n" 'BEGIN {p /= 100; t = n ? 400 * sqrt(p * (1 - p) / n) : 0
	printf "%.1f", t < 3 ? 3 : t}')
note "leaf Lua function shares: vmstack fib $vm_fib% loop_sum $vm_loop% of $n samples; timed by the script fib $t_fib% loop_sum $t_loop% (tolerance $tol points); jit.p fib $jp_fib% loop_sum $jp_loop%"
[ -n "$t_fib" ] && [ -n "$t_loop" ] || fail "no timed figures"
within "$tol" "$vm_fib" "$t_fib" "$vm_loop" "$t_loop" ||
	fail "shares differ from the script's own timing by more than $tol points"
true
