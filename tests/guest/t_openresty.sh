# nginx 1.22 with lua-nginx-module on OpenResty's LuaJIT (Debian's
# libluajit2 build, unpacked into a private prefix by scripts/setup, never
# installed over the system's), attached while a client keeps it busy with
# a handler whose split is known by construction (handler.lua: sort with a
# Lua comparator 50%, plain Lua 50%). The build is recognised as
# OpenResty's (its builtin numbers differ from Debian's LuaJIT: ffid 99 is
# table.sort there, file:flush here), Lua frames are named and rooted in
# nginx's C frames, and the two functions' shares are the construction's
# within 8 points. sort_work is at handler.lua:9, lua_work :16.
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
secs=$((3 * scale))
/usr/bin/time -f "recorder: %e s, %M KiB" vmstack-record -q -p $pid -d $secs \
	-o /tmp/ngx.folded 2>/tmp/ngx.err
rc=$?
cat /tmp/ngx.err
[ $rc = 0 ] || fail "vmstack-record exited $rc on nginx"
grep -q 'OpenResty' /tmp/ngx.err || fail "the build was not named OpenResty's"
cp /tmp/ngx.folded "$VMSTACK_RESULTS/"
sort -k2 -nr /tmp/ngx.folded | head -5 | cut -c1-400
echo "stacks with unknown frames:"
grep -F '[unknown]' /tmp/ngx.folded | sort -k2 -nr | head -4 | cut -c1-400
f=/tmp/ngx.folded
share() { stack_share $f "$1"; }
total=$(awk '{s += $NF} END {print s+0}' $f)
H='handler\.lua'
sort_s=$(share "$H:9_\[vm\]")
lua_s=$(share "$H:16_\[vm\]")
cmp_s=$(share "$H:9_\[vm\];table\.sort_\[vm\];([^;]*;)*[^;]*$H:5_\[vm\]")
rooted=$(share "^nginx;([^;]*;)*main;([^;]*;)*ngx_http_lua_content_handler[^;]*;([^;]*;)*[^;]*$H:")
cut=$(share 'vm stack cut')
note "$total samples: sort_work $sort_s% (table.sort calling desc $cmp_s%), lua_work $lua_s%, Lua rooted at main through the content handler $rooted%, VM part cut $cut%"
[ $((sort_s + lua_s)) -ge 30 ] || fail "under 30% of the samples are in the handler's Lua"
both=$((sort_s + lua_s))
within 8 $((100 * sort_s / both)) 50 $((100 * lua_s / both)) 50 ||
	fail "the handler's split differs from 50/50 by more than 8 points"
[ "$cmp_s" -ge 2 ] || fail "table.sort's calls of the Lua comparator are missing"
[ "$rooted" -ge $((both * 9 / 10)) ] || fail "Lua frames are not rooted at main through the content handler"
true
