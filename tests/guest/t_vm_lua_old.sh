# Lua 5.1, 5.2 and 5.3 (Debian's lua5.1, lua5.2, lua5.3, unmodified, and a
# C program linked with each liblua5.X) and
# Redis 7.0's own Lua 5.1 (redis-server, EVAL in a loop): a script with a known call
# tree. Lua frames sit between C frames: C -> Lua -> C -> Lua, the
# comparator table.sort calls under the function that called table.sort,
# lua_call(k) between them; per-function shares match the script's fixed
# CPU split (50/50) within 5 points. A function its caller's call names
# is "NAME (CHUNK:LINE)", NAME as Lua's own debug.getinfo names it
# (checked against it for lua5.1 to lua5.3: lua_getinfo_names), LINE
# the one it is at; the comparator, called from C, is "CHUNK:LINE" of its
# first line. A Redis Function (FCALL) in the same server; HAProxy 2.6
# (liblua5.3, a Lua service and a Lua action in coroutines under curl
# load) too, their names and Redis's checked against lua5.3's and
# lua5.1's getinfo on the same lines.
. tests/guest/lib.sh
script=tests/workloads/lua/known_old.lua
# check FOLDED LABEL CHUNK ANCHOR [GETINFO]: the samples under ANCHOR (an
# ERE: the C entry to Lua) show CHUNK's frames; heavy (line 2) and cmp
# (line 3) split the Lua part 50/50; cmp sits under sorter (line 4) with
# the sort's C frames and lua_call(k) between; the functions GETINFO
# names (lua_getinfo_names) are named so.
check() {
	local f=$1 label=$2 chunk=$3 anchor=$4 total
	share() { stack_share "$f" "$1"; }
	named() { echo "$1 \\([^;]*$chunk:$2\\)_\\[vm\\]"; }
	total=$(stack_count "$f" "$anchor")
	local in=$(share "$anchor")
	local lua=$(share "$anchor.*$chunk:[0-9]+\)?_\[vm\]")
	local h=$(share "$(named heavy 2)") c=$(share "$chunk:3_\[vm\]")
	local chain=$(share "$(named sorter 4);.*lua_callk?;.*$chunk:3_\[vm\]")
	local cut=$(share 'vm stack cut')
	note "$label: $total samples under the C entry ($in% of all), with Lua frames $lua%, heavy $h% cmp $c% (expected 50/50 of the Lua part), cmp under sorter through lua_call $chain%, VM part cut $cut%"
	[ "$total" -ge 300 ] || fail "$label: too few samples"
	[ "$lua" -ge $((in * 90 / 100)) ] || fail "$label: under 90% of the samples in Lua show Lua frames"
	awk -v h=$h -v c=$c -v t=$((h + c)) 'BEGIN {
		if (!t) exit 1
		d1 = 100 * h / t - 50; d2 = 100 * c / t - 50
		exit !(d1 * d1 < 25 && d2 * d2 < 25) }' ||
		fail "$label: function shares off the known split by more than 5 points"
	[ "$chain" -ge $((c - 2)) ] || fail "$label: cmp not under sorter with the C frames between"
	[ "$cut" -le 2 ] || fail "$label: more than 2% of VM stacks cut"
	[ -z "${5:-}" ] || lua_names_match "$f" "$chunk" "$label" "$5"
}
for v in 5.1 5.2 5.3; do
	# On the debug kernel Redis's 5.1 and HAProxy's 5.3 (below) stand for
	# them: the module runs the same programs.
	case $v in
	5.1 | 5.3) release_only "lua$v's own interpreter" || continue ;;
	esac
	vmstack-record -F 999 -o /tmp/lold$v.folded -- lua$v $script $((3 * span)) 2>/tmp/lold$v.err ||
		{ cat /tmp/lold$v.err; fail "lua$v: record failed"; }
	cat /tmp/lold$v.err
	grep -q "VM frames merged (Lua $v" /tmp/lold$v.err || fail "Lua $v not detected"
	sort -k2 -nr /tmp/lold$v.folded | head -3 | cut -c1-400
	check /tmp/lold$v.folded "lua$v" known_old.lua ';__libc_start_(call_)?main;' \
		"$(lua_getinfo_names lua$v $script 0.2)"
	cp /tmp/lold$v.folded "$VMSTACK_RESULTS/"
done

# A C program embedding each version's shared library (Debian's
# liblua5.X.so.0; build/workloads/lua_host5.X): the same script, its
# frames in the library, entered through lua_pcall (5.2 and 5.3:
# lua_pcallk). Release kernel only: the programs are those the
# interpreters above, Redis's and HAProxy's run on the debug kernel.
release_only "C hosts of liblua5.1 to liblua5.3" && for v in 5.1 5.2 5.3; do
	f=/tmp/lhost$v.folded
	vmstack-record -F 999 -o $f -- build/workloads/lua_host$v $script $((2 * span)) 2>$f.err ||
		{ cat $f.err; fail "lua_host$v: record failed"; }
	cat $f.err
	grep -q "VM frames merged (Lua $v" $f.err || fail "lua_host$v: liblua$v's Lua not detected"
	grep -q "liblua$v.so" $f || fail "lua_host$v: no frame in liblua$v.so"
	sort -k2 -nr $f | head -2 | cut -c1-400
	check $f "lua_host$v (liblua$v)" known_old.lua ';lua_pcallk?;' \
		"$(lua_getinfo_names lua$v $script 0.2)"
	cp $f "$VMSTACK_RESULTS/"
done

# Redis's own Lua 5.1, EVAL in a loop (Redis listens on a socket only).
# Its chunk is "@user_script"; a count stands in for os.clock. heavy
# keeps its frame: "return spin(...)" would be a tail call, which
# replaces the caller's frame (heavy showed 0%, its spin right under the
# main chunk, as Lua's own debug.traceback shows it: "(...tail calls...)").
# Each EVAL alternates heavy and sorter 20 times, so that the recording's
# edges cut small pieces of work: with one of each per EVAL (2,000,000
# iterations each) a release run split 54/44 in 2,989 samples.
sock=/tmp/vmstack-redis-old.sock
redis-server --port 0 --unixsocket $sock --save '' --appendonly no >/dev/null &
redis=$!
wait_until 10 redis-cli -s $sock ping >/dev/null || { kill $redis; fail "redis-server did not start"; }
eval_script='local function spin(n) local x = 0 for i = 1, n do x = x + 1 end return x end
local function heavy() local x = spin(100000) return x end
local function cmp(a, b) spin(100000) return a < b end
local function sorter() local t = {2, 1} table.sort(t, cmp) return t[1] end
local n = 0 for _ = 1, 20 do n = n + heavy() + sorter() end return n'
redis-cli -s $sock -r 1000000 EVAL "$eval_script" 0 >/dev/null 2>&1 &
cli=$!
sleep $scale
vmstack-record -F 999 -p $redis -d $((3 * span)) -o /tmp/lold-redis.folded 2>/tmp/lold-redis.err
rc=$?
kill $cli 2>/dev/null
wait $cli 2>/dev/null
# A Redis Function (FUNCTION LOAD, FCALL in a loop), the same server:
# its library's chunk is "@user_function"; fwork, called by the
# registered function (from C: no name), is named as Lua names it.
flib='#!lua name=vmstacklib
local function spin(n) local x = 0 for i = 1, n do x = x + 1 end return x end
local function fwork() local x = spin(100000) return x end
redis.register_function("fspin", function() local n = 0 for _ = 1, 20 do n = n + fwork() end return n end)'
redis-cli -s $sock FUNCTION LOAD "$flib" >/dev/null || { kill $redis; fail "redis-server: FUNCTION LOAD failed"; }
redis-cli -s $sock -r 1000000 FCALL fspin 0 >/dev/null 2>&1 &
cli=$!
sleep $scale
vmstack-record -q -F 999 -p $redis -d $((2 * span)) -o /tmp/lold-redisf.folded 2>/tmp/lold-redisf.err
frc=$?
kill $cli $redis 2>/dev/null
wait $cli $redis 2>/dev/null
cat /tmp/lold-redis.err
[ $rc -eq 0 ] || fail "redis-server: record failed"
grep -q 'VM frames merged (Lua 5.1' /tmp/lold-redis.err || fail "redis-server's Lua 5.1 not detected"
sort -k2 -nr /tmp/lold-redis.folded | head -3 | cut -c1-400
cp /tmp/lold-redis.folded "$VMSTACK_RESULTS/"
# Redis's scripts have no debug library: its names are checked against
# Lua 5.1.5's own debug.getinfo (Debian's lua5.1, the release Redis's
# copy is patched from) on the same script's lines.
printf '%s\n' "$eval_script" >/tmp/vmstack-redis-eval.lua
check /tmp/lold-redis.folded "redis-server" user_script ';lua_pcall;' \
	"$(lua_getinfo_names lua5.1 /tmp/vmstack-redis-eval.lua)"
cat /tmp/lold-redisf.err
[ $frc -eq 0 ] || fail "redis-server FCALL: record failed"
cp /tmp/lold-redisf.folded "$VMSTACK_RESULTS/"
in=$(stack_share /tmp/lold-redisf.folded ';lua_pcall;')
fwork=$(stack_share /tmp/lold-redisf.folded ';lua_pcall;.*fwork \([^;]*user_function:3\)_\[vm\]')
note "redis-server FCALL: $(stack_count /tmp/lold-redisf.folded ';lua_pcall;') samples under lua_pcall ($in% of all), in fwork, named, $fwork%"
[ "$fwork" -ge $((in * 90 / 100)) ] || fail "redis-server FCALL: under 90% of the samples in Lua in fwork, named"
printf '%s\n' "$flib" >/tmp/vmstack-redis-lib.lua
lua_names_match /tmp/lold-redisf.folded user_function "redis-server FCALL" \
	"$(lua_getinfo_names lua5.1 -e 'redis = { register_function = function(_, f) pcall(f) end }' \
		/tmp/vmstack-redis-lib.lua)"

# HAProxy 2.6's Lua (Debian's liblua5.3.so.0): a Lua service under curl
# load, run in a coroutine (lua_resume). Each request alternates heavy
# and sorter 20 times and each curl keeps its connection, so that a
# recording's edges cut small pieces of work, not whole requests: with
# one spin of each per request and a curl per request the split swung
# to 59/41 and 45/55 in 1,400 samples. One thread: with two, half of
# the samples were the other thread spinning in lua_take_global_lock
# (HAProxy's Lua state is shared). HAProxy's hook yields every
# tune.lua.forced-yield instructions; a coroutine resumed in the middle of
# nested Lua calls runs each pending frame in a luaV_execute of its own,
# called by lua_resume's unroll, so the callers of the innermost one are
# in no native frame and are not shown: the split is measured with the
# forced yield out of reach.
command -v haproxy >/dev/null && command -v curl >/dev/null ||
	fail "no haproxy or curl here (scripts/setup installs them)"
cat >/tmp/vmstack-haproxy.lua <<'LUA'
local function spin(n) local x = 0 for i = 1, n do x = x + 1 end return x end
local function heavy() local x = spin(15000) return x end
local function cmp(a, b) spin(15000) return a < b end
local function sorter() local t = {2, 1} table.sort(t, cmp) return t[1] end
core.register_service("spin", "http", function(applet)
	local n = 0
	for _ = 1, 20 do n = n + heavy() + sorter() end
	local r = tostring(n)
	applet:set_status(200)
	applet:add_header("content-length", #r)
	applet:start_response()
	applet:send(r)
end)
local function act_work() local x = spin(15000) return x end
core.register_action("act", { "http-req" }, function() for _ = 1, 20 do act_work() end end)
LUA
cat >/tmp/vmstack-haproxy.cfg <<'CFG'
global
	nbthread 1
	tune.lua.forced-yield 1000000000
	lua-load /tmp/vmstack-haproxy.lua
defaults
	mode http
	timeout client 30s
	timeout server 30s
	timeout connect 5s
frontend spin
	bind 127.0.0.1:18980
	http-request use-service lua.spin
frontend act
	bind 127.0.0.1:18981
	http-request lua.act
	http-request return status 200
CFG
# The guest's loopback starts down.
ip link set lo up 2>/dev/null
haproxy -f /tmp/vmstack-haproxy.cfg -db >/dev/null 2>&1 &
hap=$!
wait_until 10 curl -s -o /dev/null http://127.0.0.1:18980/ || { kill $hap; fail "haproxy did not start"; }
# curl itself in the background, so that kill stops it (a shell
# function's subshell would die and leave it fetching).
curl -s "http://127.0.0.1:18980/?n=[1-1000000]" >/dev/null 2>&1 &
l1=$!
curl -s "http://127.0.0.1:18980/?n=[1-1000000]" >/dev/null 2>&1 &
l2=$!
curl -s "http://127.0.0.1:18981/?n=[1-1000000]" >/dev/null 2>&1 &
l3=$!
sleep $scale
vmstack-record -F 999 -p $hap -d $((3 * span)) -o /tmp/lold-haproxy.folded 2>/tmp/lold-haproxy.err
rc=$?
kill $l1 $l2 $l3 $hap 2>/dev/null
wait $l1 $l2 $l3 $hap 2>/dev/null
cat /tmp/lold-haproxy.err
[ $rc -eq 0 ] || fail "haproxy: record failed"
grep -q 'VM frames merged (Lua 5.3' /tmp/lold-haproxy.err || fail "haproxy's Lua 5.3 not detected"
sort -k2 -nr /tmp/lold-haproxy.folded | head -3 | cut -c1-400
cp /tmp/lold-haproxy.folded "$VMSTACK_RESULTS/"
# Names against Lua 5.3's debug.getinfo on the same file, a stand-in
# core running the service once from C (pcall), as HAProxy runs it from
# lua_resume: nothing names the service function.
check /tmp/lold-haproxy.folded "haproxy" vmstack-haproxy.lua ';lua_resume;' \
	"$(lua_getinfo_names lua5.3 -e 'core = { register_service = function(_, _, f)
		pcall(f, setmetatable({}, { __index = function() return function() end end })) end,
		register_action = function(_, _, f) pcall(f, {}) end }' /tmp/vmstack-haproxy.lua)"
# The action (a third of the load) in act_work, named, under lua_resume.
act=$(stack_share /tmp/lold-haproxy.folded ';lua_resume;.*act_work \([^;]*vmstack-haproxy.lua:14\)_\[vm\]')
note "haproxy: the Lua action's act_work, named, in $act% of the samples"
[ "$act" -ge 10 ] || fail "haproxy: the Lua action's frames not merged (act_work $act%)"
