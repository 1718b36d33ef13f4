# The sandwich demo (C embedding LuaJIT, JIT off): merged stacks show the
# C -> Lua -> C -> Lua crossings, rooted at main. Lua frames are named from
# the target's memory (chunk:line of the function, after the name its
# caller's call gives it: "lua_fib (sandwich.lua:1)" in its recursion)
# and marked _[vm].
. tests/guest/lib.sh
vmstack-record -F 999 -o /tmp/sw.folded -- build/workloads/sandwich $((3 * span)) 2>/tmp/sw.err ||
	{ cat /tmp/sw.err; fail "record failed"; }
cat /tmp/sw.err
cp /tmp/sw.folded "$VMSTACK_RESULTS/"
sort -k2 -nr /tmp/sw.folded | head -5 | cut -c1-400
share() { stack_share /tmp/sw.folded "$1"; }
total=$(awk '{s += $NF} END {print s+0}' /tmp/sw.folded)
# Rooted at main of the samples after the dynamic loader's start-up
# (stacks through _dl_start, before main exists: 552 of 4,472 on the
# debug kernel, where main's share of all was 82%).
loader=$(stack_count /tmp/sw.folded ';_dl_start;')
main=$(awk -v m="$(stack_count /tmp/sw.folded ';main;run;')" -v t=$((total - loader)) \
	'BEGIN {printf "%d", t ? 100 * m / t : 0}')
F=$(lua_frame 'sandwich\.lua' 1)
vm=$(share "$F")
crossing=$(share ";lua_pcall;$F")
L="($F;?)+"
four=$(share ";main;run;c_fib;(c_fib;)*lua_fib_call;lua_pcall;${L}l_c_fib;c_fib;(c_fib;)*lua_fib_call;lua_pcall;$L")
five=$(grep -cE ";main;run;c_fib;(c_fib;)*lua_fib_call;lua_pcall;${L}l_c_fib;c_fib;(c_fib;)*lua_fib_call;lua_pcall;${L}l_c_fib;c_fib" /tmp/sw.folded)
cut=$(share 'vm stack cut')
note "of $total samples ($loader in the loader): rooted at main;run $main% of the others, with Lua frames $vm%, C->Lua crossing $crossing%, C->Lua->C->Lua $four%, VM part cut $cut%; distinct C->Lua->C->Lua->C stacks: $five"
[ "$main" -ge 85 ] || fail "under 85% of samples are rooted at main"
[ "$vm" -ge 50 ] || fail "under half the samples show Lua frames"
[ "$four" -ge 10 ] || fail "the C->Lua->C->Lua sandwich is missing"
[ "$five" -ge 1 ] || fail "the 5-layer sandwich is missing"
! grep -q 'vm stack cut' /tmp/sw.folded || note "(some VM stacks were cut: see the counter)"
