# A runtime vmstack recognises but does not walk is named, with its file,
# its version and the process, and the process is still profiled with
# native stacks: a Lua of a version not walked (Debian's lua5.2 with its
# lua_ident saying 5.5.0: no other PUC Lua is installed).
# (Lua 5.1, 5.2, Redis's own 5.1 and 5.3 are walked: t_vm_lua_old.sh; Ruby
# and PHP: t_vm_ruby.sh, t_vm_php.sh; CPython 3.9 to 3.13:
# t_cpython_versions.sh. The older CPythons it names: test_vm_unwalked.c.)
. tests/guest/lib.sh
cd /tmp || exit 1
# expect_named WHAT FILE CMD...: a recording of CMD says WHAT in FILE.
expect_named() {
	local what=$1 file=$2 pid
	shift 2
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep $scale
	named "$what" "$file" $pid "$*"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}
# named WHAT FILE PID LABEL: a recording of PID says WHAT in FILE.
named() {
	local what=$1 file=$2 pid=$3 n
	vmstack-record -p $pid -d $scale -o /tmp/unw.folded 2>/tmp/unw.err
	rc=$?
	cat /tmp/unw.err
	[ $rc -eq 0 ] || fail "$4: the recording failed"
	grep -F "in $file (pid $pid): " /tmp/unw.err | grep -F "$what" |
		grep -q 'its frames are not merged (native stacks only)' ||
		fail "$4 was not named as $what in $file"
	n=$(stack_count /tmp/unw.folded '')
	[ "$n" -gt 20 ] || fail "$4: only $n native samples"
}
spin_lua='local x = 0 while true do x = x + 1 end'
# Same length, so the file stays what it was but for those bytes.
LC_ALL=C sed 's/\$LuaVersion: Lua 5\.2\.4/$LuaVersion: Lua 5.5.0/' /usr/bin/lua5.2 >/tmp/lua5.5 &&
	chmod +x /tmp/lua5.5 || fail "no copy of lua5.2 made 5.5"
expect_named 'Lua 5.5.0' /tmp/lua5.5 /tmp/lua5.5 -e "$spin_lua"
true
