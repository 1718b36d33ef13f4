# Lua 5.4 (Debian's /usr/bin/lua5.4, unmodified): a script with a known
# call tree, started by the recorder and attached to while it runs. Lua
# frames sit between C frames, rooted at main: a function its caller's
# call names is "NAME (CHUNK:LINE)", NAME as Lua's own debug.getinfo names
# it (checked against it: lua_getinfo_names), LINE the one it is at;
# others (the main chunk, a coroutine's body, called from C) are
# "CHUNK:LINE" of their first line. Per-function shares match the
# script's fixed CPU split (50/25/25) within 5 points; a coroutine's
# frames hang under the main chunk that resumed it.
. tests/guest/lib.sh
script=tests/workloads/lua/known54.lua
named() { echo "$1 \\([^;]*known54\\.lua:$2\\)_\\[vm\\]"; }
getinfo=$(lua_getinfo_names lua5.4 $script 0.2)
check() {  # folded file, label
	local f=$1 total share
	total=$(awk '{s += $NF} END {print s+0}' "$f")
	share() { stack_share "$f" "$1"; }
	local main=$(share ';__libc_start_(call_)?main;')
	local lua=$(share 'known54\.lua:[0-9]+\)?_\[vm\]')
	local h=$(share "$(named heavy 2)") l=$(share "$(named light 3)") c=$(share "$(named in_co 4)")
	local co=$(share "known54\.lua:0_\[vm\];.*lua_resume;.*$(named in_co 4)")
	local cut=$(share 'vm stack cut')
	note "$2: $total samples: rooted at main $main%, with Lua frames $lua%, heavy $h% light $l% in_co $c% (expected 50/25/25 of the Lua part), coroutine under main chunk $co%, VM part cut $cut%"
	[ "$total" -ge 500 ] || fail "$2: too few samples"
	[ "$main" -ge 90 ] || fail "$2: under 90% of samples rooted at main"
	[ "$lua" -ge 90 ] || fail "$2: under 90% of samples show Lua frames"
	awk -v h=$h -v l=$l -v c=$c -v t=$lua 'BEGIN {
		d1 = 100 * h / t - 50; d2 = 100 * l / t - 25; d3 = 100 * c / t - 25
		exit !(d1 * d1 < 25 && d2 * d2 < 25 && d3 * d3 < 25) }' ||
		fail "$2: function shares off the known split by more than 5 points"
	[ "$co" -ge $((c - 2)) ] || fail "$2: coroutine frames not under the main chunk"
	[ "$cut" -le 2 ] || fail "$2: more than 2% of VM stacks cut"
	lua_names_match "$f" known54.lua "$2" "$getinfo"
}
vmstack-record -F 999 -o /tmp/l54.folded -- lua5.4 $script $((4 * span)) 2>/tmp/l54.err ||
	{ cat /tmp/l54.err; fail "record failed"; }
cat /tmp/l54.err
grep -q 'VM frames merged (Lua 5.4' /tmp/l54.err || fail "Lua 5.4 not detected"
sort -k2 -nr /tmp/l54.folded | head -3 | cut -c1-400
check /tmp/l54.folded "started"

lua5.4 $script $((8 * scale)) &
pid=$!
sleep 1
vmstack-record -q -F 999 -d $((4 * span)) -p $pid -o /tmp/l54a.folded 2>/tmp/l54a.err ||
	{ cat /tmp/l54a.err; fail "attach failed"; }
kill $pid; wait $pid 2>/dev/null
cp /tmp/l54.folded /tmp/l54a.folded "$VMSTACK_RESULTS/"
check /tmp/l54a.folded "attached"

# Across the VM's own C frames: an __index metamethod (from the main
# chunk's px.key) and the iterator of a generic for in it (functions of
# one line: lua_names_match) each run in a
# luaV_execute of their own, below C frames (luaT_callTMres, luaD_call);
# they are named from their caller's instruction, as debug.getinfo names
# them ("index", "for iterator" in 5.4; "__index" in 5.2 and 5.3; 5.1
# names its iterator "(for generator)" and no metamethod), their
# interpreters running the same script on the release kernel.
cat >/tmp/across.lua <<'LUA'
local function it(_, i) if i then return nil end local s = 0 for k = 1, 20000 do s = s + k % 7 end return s end
local px = setmetatable({}, { __index = function() local n = 0 for _ in it do n = n + 1 end return n end })
local t0 = os.clock()
while os.clock() - t0 < tonumber(arg[1]) do local _ = px.key end
LUA
# A raw recording of it names them as the live one (its VMs' frames named
# across native frames travel in the file).
across() {
	local lua=$1 f=/tmp/across-$1.folded
	vmstack-record -q -F 999 --raw $f.raw -o $f -- $lua /tmp/across.lua $((2 * span)) 2>$f.err ||
		{ cat $f.err; fail "$lua across: record failed"; }
	cp $f "$VMSTACK_RESULTS/"
	sort -k2 -nr $f | head -2 | cut -c1-400
	lua_names_match $f across.lua "$lua across C frames" "$(lua_getinfo_names $lua /tmp/across.lua 0.2)"
	vmstack-report -i $f.raw -o $f.replay || fail "$lua across: report of the raw recording failed"
	cmp $f $f.replay || fail "$lua across: the raw recording's replay differs from the live output"
}
across lua5.4
release_only "lua5.1 to lua5.3's names across C frames (5.4's program is 5.3's)" && {
	across lua5.3
	across lua5.2
	across lua5.1
}

# A resumed coroutine: its iterator `it` (line 1), which yielded in a
# generic for, resumed through an __index metamethod that is the
# coroutine itself (coroutine.wrap's C function). The iterator's caller,
# the coroutine's body, has no luaV_execute on the native stack any more
# (lua_resume's unroll runs the iterator first): the script frame found
# across the C frames would be the resumer's, at its GETTABLE, and name
# the iterator "__index". The search ends at lua_resume: it is unnamed
# (Lua itself says "for iterator"). 5.1 cannot yield there.
cat >/tmp/resumed.lua <<'LUA'
local function it(_, i) if i then return nil end coroutine.yield() local s = 0 for k = 1, 20000 do s = s + k % 7 end return s end
local co = coroutine.wrap(function() while true do for _ in it do end end end)
local px = setmetatable({}, { __index = co })
local t0 = os.clock()
while os.clock() - t0 < tonumber(arg[1]) do local _ = px.key end
LUA
resumed() {
	local lua=$1 f=/tmp/resumed-$1.folded it wrong
	vmstack-record -q -F 999 -o $f -- $lua /tmp/resumed.lua $((2 * span)) 2>$f.err ||
		{ cat $f.err; fail "$lua resumed: record failed"; }
	cp $f "$VMSTACK_RESULTS/"
	it=$(stack_count $f "$(lua_frame 'resumed\.lua' 1)( |;)")
	wrong=$(stack_count $f ';_?_?index \([^;]*resumed\.lua:1\)_\[vm\]')
	note "$lua resumed coroutine: $it samples in the iterator, $wrong of them named as the resumer's metamethod"
	[ "$it" -ge 100 ] || fail "$lua resumed: too few samples in the iterator"
	[ "$wrong" -eq 0 ] || fail "$lua resumed: the iterator named by the resuming thread's instruction"
}
resumed lua5.4
release_only "lua5.2 and lua5.3's resumed coroutine" && {
	resumed lua5.3
	resumed lua5.2
}
true
