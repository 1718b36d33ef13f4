# Every resource capped, with a clear error at the cap: sessions per user,
# their other kernel memory per user, ring memory against RLIMIT_MEMLOCK
# (as perf's buffers), and a session's unwind rules: a target that
# dlopens and dlcloses 150 libraries keeps its rules' memory
# bounded (tables of libraries it unmapped are freed) and its newest
# libraries unwinding.
. tests/guest/lib.sh
build/workloads/calltree $((30 * scale)) &
pid=$!
vmstack-probe sessions $pid 64 || fail "64 sessions of one user refused"
out=$(vmstack-probe sessions $pid 65)
rc=$?
echo "$out"
[ $rc = 1 ] || fail "65 sessions of one user opened"
echo "$out" | grep -q "too many vmstack sessions open by this user" || fail "unclear session limit"
# Kernel memory besides the rings: a table being uploaded counts whole
# from its first chunk, against the session's cap and the user's
# (VMSTACK_MAX_USER_BYTES over all its sessions).
build/workloads/calltree $((30 * scale)) &
other=$!
vmstack-probe memcap $pid $other || fail "unwind memory not counted from the first chunk, or not capped per user"
kill $pid $other
wait $pid $other 2>/dev/null
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
perfmon=("${nobody[@]}" --inh-caps=-all,+perfmon --ambient-caps=+perfmon)
# A target that outlives both recordings (killed below, or at exit): under
# load a 4 s one had exited and, a zombie, was no longer readable.
"${nobody[@]}" build/workloads/calltree $((120 * scale)) &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
# Until setpriv has exec'd calltree the process has changed uid and is not
# dumpable: a recorder started then is refused for that, not for memlock.
wait_until 30 grep -qx calltree /proc/$pid/comm || fail "the target did not start"
out=$(prlimit --memlock=65536 "${perfmon[@]}" vmstack-record -q --ring-pages 64 -p $pid -d 1 -o /dev/null 2>&1)
rc=$?
echo "memlock 64 KiB, --ring-pages 64: rc=$rc: $out"
[ $rc = 1 ] && echo "$out" | grep -q "RLIMIT_MEMLOCK" || fail "rings over RLIMIT_MEMLOCK not refused clearly"
# Rings of the default size are held to what RLIMIT_MEMLOCK allows (8
# pages a CPU here; the module makes one per possible CPU), and the
# recorder says that is less than the rate needs.
cpus=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
out=$(prlimit --memlock=$((cpus * 9 * 4096)) "${perfmon[@]}" vmstack-record -q -p $pid -d 1 -o /dev/null 2>&1) ||
	fail "default rings not held within RLIMIT_MEMLOCK: $out"
echo "memlock for 8 pages a CPU: $out"
echo "$out" | grep -q "RLIMIT_MEMLOCK .* holds the rings to 8 pages" || fail "rings held by RLIMIT_MEMLOCK without a word"
prlimit --memlock=$((64 << 20)) "${perfmon[@]}" vmstack-record -q -p $pid -d 1 -o /dev/null ||
	fail "rings within RLIMIT_MEMLOCK refused"
kill $pid
wait $pid 2>/dev/null

# dlopen/dlclose churn: 150 libraries, 4 open at a time, 20 ms each.
mkdir -p /tmp/dl
# One tee for the 150 copies (a cp each took 89 s on the debug kernel).
tee /tmp/dl/lib{0..149}.so <build/workloads/libdlspin.so >/dev/null || fail "no copies of libdlspin.so"
vmstack-record -q --stats -o /tmp/dl.folded -- build/workloads/dlchurn /tmp/dl 150 4 $((20 * span)) 2>/tmp/dl.err ||
	{ cat /tmp/dl.err; fail "record of dlchurn failed"; }
cat /tmp/dl.err
rm -rf /tmp/dl
bytes=$(sed -n 's/.*unwind rules: .* rows sent, \([0-9]*\) bytes in the module.*/\1/p' /tmp/dl.err)
maps=$(sed -n 's/.*unwind rules: \([0-9]*\) mappings.*/\1/p' /tmp/dl.err)
in_lib=$(grep -E ';lib_spin;lib_inner ' /tmp/dl.folded | awk '{s += $NF} END {print s+0}')
rooted=$(grep -E ';main;lib_spin;lib_inner ' /tmp/dl.folded | awk '{s += $NF} END {print s+0}')
note "rule tables uploaded: $maps; the module holds $bytes bytes at the end; samples in the libraries: $in_lib, of them through main: $rooted"
[ "$maps" -gt 100 ] || fail "the libraries' rules were not uploaded as they came"
[ "${bytes:-999999999}" -lt 4000000 ] || fail "the rules of unmapped libraries stayed in the module"
[ "$in_lib" -gt 500 ] || fail "too few samples in the libraries"
[ $((100 * rooted / in_lib)) -ge 80 ] || fail "stacks through the newest libraries do not unwind to main"
