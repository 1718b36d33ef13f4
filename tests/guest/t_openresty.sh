# nginx 1.22 with lua-nginx-module on OpenResty's LuaJIT (Debian's
# libluajit2 build, unpacked into a private prefix by scripts/setup, never
# installed over the system's), attached while a client keeps it busy with
# a handler whose split is known by construction (handler.lua: sort with a
# Lua comparator, ngx.md5 (C through resty.core's FFI) and plain Lua, a
# third each). The build is recognised as OpenResty's (its builtin numbers
# differ from Debian's LuaJIT: ffid 99 is table.sort there, file:flush
# here), Lua frames are named and rooted in nginx's C frames with C frames
# above them, and of the samples in the handler's three functions each
# has the construction's share within 5 points. md5_work calls ngx.md5
# from trace code through the FFI: a sample in that C code, which may have
# reused r14 (where the trace keeps DISPATCH), is attributed through the
# anchor the CPU last proved for the VM (module/vm_walk.c). sort_work is at
# handler.lua:11, desc :7, md5_work :18, lua_work :24.
. tests/guest/lib.sh
OR=/opt/vmstack/openresty
[ -e $OR/.complete ] || fail "no OpenResty prefix at $OR (scripts/setup makes it)"
dir=/tmp/ngx
handler=$VMSTACK_REPO/tests/workloads/nginx/handler.lua
mkdir -p $dir
sed "s|@OR@|$OR|g; s|@DIR@|$dir|g; s|@HANDLER@|$handler|" \
	"$VMSTACK_REPO/tests/workloads/nginx/nginx.conf.in" >$dir/nginx.conf
ip link set lo up 2>/dev/null
LD_LIBRARY_PATH=$OR/usr/lib/x86_64-linux-gnu nginx -p $dir -c $dir/nginx.conf &
pid=$!
cleanup() {
	kill $client $pid 2>/dev/null
	wait $pid 2>/dev/null
}
client=
trap cleanup EXIT
wait_until 60 curl -s -o /dev/null http://127.0.0.1:8089/work || {
	cat $dir/error.log
	fail "nginx did not answer"
}
grep -q "$OR/.*libluajit" /proc/$pid/maps || fail "nginx did not load OpenResty's LuaJIT"
# One client process, one connection, request after request (curl's URL
# ranges): the worker is busy, not waiting for clients to start.
curl -s -o /dev/null "http://127.0.0.1:8089/work?[1-1000000]" &
client=$!
secs=$((3 * span))
/usr/bin/time -f "recorder: %e s, %M KiB" vmstack-record -q -p $pid -d $secs \
	-o /tmp/ngx.folded 2>/tmp/ngx.err
rc=$?
cat /tmp/ngx.err
[ $rc = 0 ] || fail "vmstack-record exited $rc on nginx"
grep -q 'OpenResty' /tmp/ngx.err || fail "the build was not named OpenResty's"
cp /tmp/ngx.folded "$VMSTACK_RESULTS/"
# Lua functions named as OpenResty's LuaJIT's own debug.getinfo names them.
lua_names_match /tmp/ngx.folded handler.lua "OpenResty" \
	"$(curl -s "http://127.0.0.1:8089/work?names=1")"
sort -k2 -nr /tmp/ngx.folded | head -5 | cut -c1-400
echo "stacks with unknown frames:"
grep -F '[unknown]' /tmp/ngx.folded | sort -k2 -nr | head -4 | cut -c1-400
f=/tmp/ngx.folded
share() { stack_share $f "$1"; }
total=$(awk '{s += $NF} END {print s+0}' $f)
H='handler\.lua'
sort_s=$(share "$H:11\)?_\[vm\]")
md5_s=$(share "$H:18\)?_\[vm\]")
lua_s=$(share "$H:24\)?_\[vm\]")
cmp_s=$(share "$H:11\)?_\[vm\];table\.sort_\[vm\];([^;]*;)*[^;]*$H:7\)?_\[vm\]")
md5_c=$(share "$H:18\)?_\[vm\];([^;]*;)*[^;]*md5")
rooted=$(share "^nginx;([^;]*;)*main;([^;]*;)*ngx_http_lua_content_handler[^;]*;([^;]*;)*[^;]*$H:")
cut=$(share 'vm stack cut')
in=$((sort_s + md5_s + lua_s))
note "$total samples: sort_work $sort_s% (table.sort calling desc $cmp_s%), md5_work $md5_s% (C md5 frames above it $md5_c%), lua_work $lua_s%; of the handler's $in%: $((100 * sort_s / in))/$((100 * md5_s / in))/$((100 * lua_s / in)) (by construction 33/33/33); Lua rooted at main through the content handler $rooted%; VM part cut $cut%"
lost=$(share "^nginx;\[unknown\];ngx_http_lua_ffi_md5;")
note "samples in ngx.md5's C code without the frames under it: $lost%"
[ $in -ge 50 ] || fail "under half the samples are in the handler's Lua"
within 5 $((100 * sort_s / in)) 33 $((100 * md5_s / in)) 33 $((100 * lua_s / in)) 33 ||
	fail "the handler's split differs from the construction by more than 5 points"
# Present, not a share: 3% of all samples measured (a whole percent,
# truncated), so 1.
[ "$cmp_s" -ge 1 ] || fail "table.sort's calls of the Lua comparator are missing"
# How much of md5_work is in ngx.md5 and how much in os.clock() depends on
# the kernel (a debug kernel's syscalls are slow): 26% and 10% of all
# samples measured. What must not happen is md5's C frames without theirs.
[ "$md5_c" -ge 5 ] || fail "md5_work's C frames are missing"
[ "$lost" -le 2 ] || fail "samples in ngx.md5's C code lost the frames under it"
[ "$rooted" -ge $((in * 9 / 10)) ] || fail "Lua frames are not rooted at main through the content handler"
true
