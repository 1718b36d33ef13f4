# A profile shows only builtin (fast) functions the program calls. Each
# workload first finds the builtins its work calls (a call hook, the JIT
# off: the ffids jit.util.funcinfo() gives, named by ffid.lua on the same
# LuaJIT); then every builtin frame of the profiles of that work must be
# one of them. Workloads: an nginx handler on OpenResty's LuaJIT
# (resty.core's base64 and sha1, ngx.re, table.sort with a Lua comparator,
# string operations, tables and cdata returned by Lua functions;
# tests/workloads/nginx/builtins.lua), profiled twice with the JIT on and
# twice with it off; the same kind of Lua script
# (tests/workloads/lua/builtins.lua) on Debian's luajit (GC64) and on
# Tarantool's LuaJIT (32-bit references), a process with the JIT on and
# one with it off in each profile. A frame whose function the module
# could not verify (caught while it is set up or torn down) shows as
# [vm unverified], counted, never with a name.
. tests/guest/lib.sh
OR=/opt/vmstack/openresty
LIB=$OR/usr/lib/x86_64-linux-gnu
W=$VMSTACK_REPO/tests/workloads
# Recordings of 3 s give thousands of samples (lib.sh: span).
secs=$((3 * span))
out=/tmp/bi
rm -rf $out
mkdir -p $out
cd /tmp || exit 1
[ -e $OR/.complete ] || fail "no OpenResty prefix at $OR (scripts/setup makes it)"
ip link set lo up 2>/dev/null

# check NAME NAMES CALLED ROOT FOLDED...: of the samples of the FOLDED
# profiles whose root matches the ERE ROOT, those with a builtin frame
# (a name of NAMES, "FFID NAME" lines of every builtin of that LuaJIT, or
# "[builtin ...]") whose ffid is not in CALLED (ffids, one line), and
# those with an unverified frame; adds to the totals.
bad_all=0
total_all=0
check() {
	local name=$1 names=$2 called=$3 root=$4 r
	shift 4
	r=$(awk -v called="$(cat "$called")" -v root="$root" '
		FILENAME == ARGV[1] { id = $1; sub(/^[0-9]+ /, ""); all[$0] = id; next }
		{
			n = $NF; sub(/ [0-9]+$/, "")
			k = split($0, f, ";")
			if (f[1] !~ root) next
			total += n; bad = 0
			for (i = 2; i <= k; i++) {
				if (f[i] !~ /_\[vm\]$/) continue
				b = substr(f[i], 1, length(f[i]) - 5)
				if (b == "[vm unverified]") { unv += n; continue }
				if (!(b in all) && b !~ /^\[builtin/) continue
				if ((b in all) && (" " called " ") ~ (" " all[b] " ")) continue
				bad = 1; seen[b] += n
			}
			if (bad) nbad += n
		}
		END {
			printf "%d %d %d", total, nbad, unv
			for (b in seen) printf " %s:%d", b, seen[b]
			printf "\n"
		}' "$names" "$@")
	set -- $r
	note "$name: $1 samples, $2 with builtins never called ($(awk -v a="$2" -v t="$1" \
		'BEGIN {printf "%.2f%%", t ? 100 * a / t : 0}')), $3 with a frame unverified${4:+; never called: ${*:4}}"
	total_all=$((total_all + $1))
	bad_all=$((bad_all + $2))
	[ "$1" -ge 500 ] || fail "$name: only $1 samples"
}

t0=$SECONDS
LD_LIBRARY_PATH=$LIB $VMSTACK_REPO/build/workloads/ljrun $LIB/libluajit-5.1.so.2 \
	$W/lua/ffid.lua >$out/or-names || fail "ffid.lua failed on OpenResty's LuaJIT"
luajit $W/lua/ffid.lua >$out/lj-names || fail "ffid.lua failed on luajit"
tarantool $W/lua/ffid.lua >$out/tt-names || fail "ffid.lua failed on tarantool"

# nginx: the JIT on, then (/joff) off, each profiled twice while a
# client keeps the handler busy.
dir=$out/ngx
mkdir -p $dir
sed "s|@OR@|$OR|g; s|@DIR@|$dir|g; s|@WORKLOADS@|$W/nginx|" \
	$W/nginx/builtins.conf.in >$dir/nginx.conf
LD_LIBRARY_PATH=$LIB nginx -p $dir -c $dir/nginx.conf &
ngx=$!
client=
scripts=
cleanup() {
	kill $client $ngx $scripts 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
# The first request is the discovery: it meets the work's first-time paths too.
wait_until 60 curl -sf -o $dir/discover http://127.0.0.1:8089/discover || {
	cat $dir/error.log
	fail "nginx did not answer"
}
grep -q "$LIB/libluajit" /proc/$ngx/maps || fail "nginx did not load OpenResty's LuaJIT"
tail -n 1 $dir/discover >$dir/called
note "nginx's handler calls: $(cat $dir/called)"
curl -s -o /dev/null "http://127.0.0.1:8089/work?[1-1000000]" &
client=$!
for mode in jon joff; do
	[ $mode = joff ] && { curl -sf http://127.0.0.1:8089/joff >/dev/null || fail "/joff failed"; }
	for r in 1 2; do
		vmstack-record -q -p $ngx -d $secs -o $dir/$mode-$r.folded 2>$dir/$mode-$r.err ||
			{ cat $dir/$mode-$r.err; fail "vmstack-record failed on nginx"; }
		cat $dir/$mode-$r.err
	done
	grep -q OpenResty $dir/$mode-1.err || fail "the build was not named OpenResty's"
	cp $dir/$mode-1.folded "$VMSTACK_RESULTS/builtins-ngx-$mode.folded"
	check "nginx, JIT ${mode#j}" $out/or-names $dir/called '^nginx' \
		$dir/$mode-1.folded $dir/$mode-2.folded
done
kill $client $ngx
wait $ngx 2>/dev/null
note "nginx done at $((SECONDS - t0)) s"

# script RUNTIME NAMES: tests/workloads/lua/builtins.lua on RUNTIME
# (luajit, tarantool), one process with the JIT on and one with it off,
# both in one profile.
script_run() {
	local rt=$1 names=$2 s=$W/lua/builtins.lua base=$out/$1 on off
	$rt $s 0 jon discover >$base.called 2>&1 || { cat $base.called; fail "$rt: discovery failed"; }
	note "$rt's script calls: $(cat $base.called)"
	# Long enough for the recorder's start (tarantool's DWARF is read).
	$rt $s $((secs * 10)) jon >$base-on.out 2>&1 &
	on=$!
	$rt $s $((secs * 10)) joff >$base-off.out 2>&1 &
	off=$!
	scripts="$scripts $on $off"
	wait_until 30 grep -qs running $base-on.out || fail "$rt: the script did not start"
	wait_until 30 grep -qs running $base-off.out || fail "$rt: the script did not start"
	vmstack-record -q -p $on,$off -d $secs -o $base.folded 2>$base.err ||
		{ cat $base.err; fail "vmstack-record failed on $rt"; }
	# SIGKILL: Tarantool takes SIGTERM in its event loop, which a script
	# that never yields does not reach (it ran on to its end, 50 s on the
	# debug kernel).
	kill -KILL $on $off
	wait $on $off 2>/dev/null
	cat $base.err
	cp $base.folded "$VMSTACK_RESULTS/builtins-$rt.folded"
	check "$rt, JIT on" $names $base.called " [(]$on[)]$" $base.folded
	check "$rt, JIT off" $names $base.called " [(]$off[)]$" $base.folded
	note "$rt done at $((SECONDS - t0)) s"
}
script_run luajit $out/lj-names
script_run tarantool $out/tt-names
note "all: $total_all samples, $bad_all with builtins never called"
[ "$bad_all" = 0 ] || fail "builtins never called were shown"
true
