# Attach to an unmodified, already running /usr/bin/luajit (stripped, no
# frame pointers; JIT off, traces are not supported yet): its Lua frames are
# merged and named (a function called from Lua as LuaJIT's debug.getinfo
# names it), and the per-function shares of the leaf Lua function
# agree with LuaJIT's own profiler (jit.p) on the same script within 5
# points. fib is defined at work.lua:3, loop_sum at work.lua:8.
. tests/guest/lib.sh
script=$VMSTACK_REPO/tests/workloads/lua/work.lua
cd /tmp || exit 1
luajit -joff "$script" 6 &
pid=$!
sleep 1
vmstack-record -q -p $pid -d 3 -o /tmp/lj.folded 2>/tmp/lj.err || { cat /tmp/lj.err; fail "record failed"; }
kill $pid 2>/dev/null
cat /tmp/lj.err
cp /tmp/lj.folded "$VMSTACK_RESULTS/"
sort -k2 -nr /tmp/lj.folded | head -3 | cut -c1-300
grep -qE "$(lua_frame 'work\.lua' 3)" /tmp/lj.folded || fail "no Lua frames of fib"
# fib and loop_sum named as LuaJIT's debug.getinfo names them (a local,
# an upvalue in fib's own calls), as jit.p's names are.
lua_names_match /tmp/lj.folded work.lua "attached" "$(lua_getinfo_names luajit "$script" 0.2)"
# The leaf-most Lua function of each sample, as jit.p's default mode counts.
lua='work\.lua:[0-9]+\)?_\[vm\]$'
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
note "leaf Lua function shares: vmstack fib $vm_fib% loop_sum $vm_loop%; jit.p fib $jp_fib% loop_sum $jp_loop%"
[ -n "$jp_fib" ] && [ -n "$jp_loop" ] || fail "no jit.p figures"
within 5 "$vm_fib" "$jp_fib" "$vm_loop" "$jp_loop" ||
	fail "shares differ from jit.p by more than 5 points"
true
