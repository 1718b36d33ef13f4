# Helpers for guest tests: source it. A test passes by exiting 0.
set -u
fail() {
	echo "FAIL: $*"
	exit 1
}
note() { echo "# $*"; }
# A slower kernel (the debug kernel's KASAN and lockdep; a slower host)
# stretches waits and target durations by VMSTACK_TIME_SCALE, which
# tests/guest/run measures at boot.
scale=${VMSTACK_TIME_SCALE:-1}
# A recording needs samples, and the sampler takes as many per CPU second
# on a slow kernel as on a fast one: recordings (and the workloads they
# time) stretch by at most 2, waits and limits by the whole scale.
span=$((scale < 2 ? scale : 2))
# release_only WHAT: 0 on the release kernel; on the debug kernel
# (scripts/check-debug: KASAN, lockdep, kmemleak, UBSAN; 3 to 8 times
# slower, and its lane must fit CI's time) says in the log that WHAT runs
# on the release kernel only, and returns 1. For parts whose result does not
# depend on the kernel (the recorder's own sanitizers, where a layout
# came from) or whose programs another part of the same test runs there.
release_only() {
	case $(uname -r) in
	*-vmstack-debug)
		note "debug kernel: $* (release kernel only)"
		return 1
		;;
	esac
	return 0
}
# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
	local limit=$(($1 * scale)) i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ $i -gt $((limit * 10)) ] && return 1
		sleep 0.1
	done
}
# stack_count FILE ERE: the samples in the collapsed stacks FILE whose
# stack matches the extended regex ERE (all of them for '').
stack_count() { grep -E -- "$2" "$1" | awk '{s += $NF} END {print s+0}'; }
# stack_share FILE ERE: the share (whole percent) of the samples in the
# collapsed stacks FILE whose stack matches the extended regex ERE.
stack_share() {
	awk -v s="$(stack_count "$1" "$2")" -v t="$(awk '{s += $NF} END {print s+0}' "$1")" \
		'BEGIN {printf "%d", t ? 100 * s / t : 0}'
}
# leaf_share FILE FRAME_ERE SUFFIX: of the samples in FILE with a frame
# matching FRAME_ERE, the share whose leaf-most such frame ends in SUFFIX
# (as jit.p's default mode counts a Lua function). A VM frame's name in
# parentheses ("NAME (FILE:LINE)_[vm]") ends as "FILE:LINE_[vm]" would:
# a Lua function named by its caller's call or not.
leaf_share() {
	RE=$2 awk -v f="$3" 'BEGIN {sub(/\)_\[vm\]$/, "_[vm]", f)}
		{n = $NF; sub(/ [0-9]+$/, ""); k = split($0, a, ";"); w = ""
		for (i = k; i >= 1; i--) if (a[i] ~ ENVIRON["RE"]) { w = a[i]; break }
		sub(/\)_\[vm\]$/, "_[vm]", w)
		if (w != "") { t += n; if (substr(w, length(w) - length(f) + 1) == f) s += n } }
		END {printf "%.0f", t ? 100 * s / t : 0}' "$1"
}
# lua_frame CHUNK_ERE LINE: an ERE for the frame of the Lua function at
# CHUNK:LINE, named by its caller's call ("NAME (.../CHUNK:LINE)_[vm]") or
# not ("CHUNK:LINE_[vm]": called from C, or a main chunk).
lua_frame() { echo "[^;]*$1:$2\\)?_\\[vm\\]"; }
# jitp_share FILE FUNCTION: FUNCTION's percentage in FILE, the output of
# luajit -jp=f.
jitp_share() { awk -v f="$2" '$2 == f {sub(/%/, "", $1); print $1}' "$1"; }
# within N A B [C D ...]: A and B, C and D, ... differ by at most N.
within() {
	awk -v n="$1" 'BEGIN {
		for (i = 1; i + 1 < ARGC; i += 2) {
			x = ARGV[i] - ARGV[i + 1]
			if (x > n || x < -n)
				exit 1
		}
		exit 0
	}' "${@:2}"
}
# split_about A B R: A and B samples fit a known split of R to 1, the
# share A/(A+B) within 4 standard deviations of sampling's binomial spread
# (at least 4.5 points) of R/(R+1). A fixed ratio band is too tight for a
# few hundred samples: 348/147 (a 2.4 sigma draw at 495) failed 2.4-3.75.
split_about() {
	awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN {
		n = a + b; p = r / (r + 1)
		if (n <= 0)
			exit 1
		tol = 4 * sqrt(p * (1 - p) / n)
		if (tol < 0.045)
			tol = 0.045
		d = a / n - p
		exit !(d <= tol && d >= -tol)
	}'
}
# lua_getinfo_names LUA SCRIPT ARGS...: run SCRIPT with interpreter LUA
# under a call hook that prints, once per function of SCRIPT,
# "LINEDEFINED NAME" as Lua's own debug.getinfo(f, "n") names it (nothing
# for one it names not: called from C, or by a tail call in PUC Lua).
# LUA: lua5.x, luajit, or tarantool (whose own Lua modules are left out).
lua_getinfo_names() {
	local lua=$1
	shift
	"$lua" -e 'local seen = {}
debug.sethook(function()
	local i = debug.getinfo(2, "nS")
	if i and i.what == "Lua" and i.name and i.source == "@" .. tostring(arg and arg[0]) and
	   not seen[i.linedefined] then
		seen[i.linedefined] = true
		io.stderr:write(i.linedefined, " ", i.name, "\n")
	end
end, "c")' "$@" 2>&1 >/dev/null
}
# lua_names_match FOLDED CHUNK LABEL PAIRS: each "LINE NAME" of PAIRS
# (lua_getinfo_names' output; functions of one line, so the line a frame
# is at is the one its function starts at) names frames of FOLDED as
# vmstack shows a Lua function its caller names: "NAME (...CHUNK:LINE)".
lua_names_match() {
	local line name re n=0
	while read -r line name; do
		[ -n "$name" ] || continue
		# ERE-quoted: 5.1 names an iterator "(for generator)".
		re=$(printf '%s' "$name" | sed 's/[][().*^$+?{}|\\]/\\&/g')
		[ "$(stack_count "$1" ";$re \([^;]*$2:$line\)_\[vm\]")" -gt 0 ] ||
			fail "$3: no frame $name ($2:$line), as debug.getinfo names it"
		n=$((n + 1))
	done <<<"$4"
	[ $n -gt 0 ] || fail "$3: debug.getinfo named no function"
	note "$3: $n functions named as debug.getinfo names them: $(echo $4)"
}
