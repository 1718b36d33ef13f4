#!/bin/bash
# make install as a packager runs it (DESTDIR=a temporary directory,
# PREFIX=/usr): exactly the expected files, in the expected places; the
# installed tools say VERSION's version; a program built with the
# installed header and -lvmstack registers a VM; make uninstall leaves
# nothing. Prints "PASS install:NAME" or "FAIL install:NAME" per check,
# with "# " lines saying why.
# Usage: tests/host/install.sh   (from anywhere; the tools built or not)
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dest=$work/root

result() {
	echo "$1 install:$2"
}

# The tools and the library build first if they have to: make's output
# goes to a log, not among the results.
if ! make -C "$repo" install DESTDIR="$dest" PREFIX=/usr >"$work/make.log" 2>&1; then
	tail -20 "$work/make.log" | sed 's/^/# /'
	result FAIL files
	exit 1
fi

want="etc/systemd/system/vmstack-record.service
etc/systemd/system/vmstack-record@.service
usr/bin/vmstack
usr/bin/vmstack-flamegraph
usr/bin/vmstack-record
usr/bin/vmstack-report
usr/include/libvmstack.h
usr/lib/libvmstack.a
usr/lib/libvmstack.so
usr/lib/libvmstack.so.1
usr/share/man/man1/vmstack-flamegraph.1
usr/share/man/man1/vmstack-record.1
usr/share/man/man1/vmstack-report.1
usr/share/man/man3/libvmstack.3
usr/share/man/man8/vmstack.8"
got=$(cd "$dest" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
if [ "$got" = "$want" ]; then
	result PASS files
else
	diff <(echo "$want") <(echo "$got") | sed 's/^/# want < > got: /'
	result FAIL files
fi

# Each tool runs from where it was installed and has its man page.
version=$(cat "$repo/VERSION")
why=""
for t in vmstack vmstack-record vmstack-report vmstack-flamegraph; do
	out=$("$dest/usr/bin/$t" --version 2>&1)
	case $out in
	"$t $version (ABI "[0-9]*.[0-9]*")") ;;
	*) why="$why
# $t --version: '$out', not '$t $version (ABI M.N)'" ;;
	esac
	ls "$dest"/usr/share/man/man?/"$t".[18] >/dev/null 2>&1 ||
		why="$why
# $t: no man page installed"
done
if [ -z "$why" ]; then
	result PASS tools
else
	echo "${why#?}"
	result FAIL tools
fi

# The library as a program links it: the header, -lvmstack through the
# libvmstack.so link, the soname at run time. The registration is
# removed when the program exits.
why=""
soname=$(readelf -d "$dest/usr/lib/libvmstack.so.1" 2>/dev/null |
	sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libvmstack.so.1 ] || why="$why
# libvmstack.so.1: soname '$soname'"
[ "$(readlink "$dest/usr/lib/libvmstack.so")" = libvmstack.so.1 ] || why="$why
# libvmstack.so: not a link to libvmstack.so.1"
cat >"$work/prog.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include <libvmstack.h>

int main(void)
{
	char path[64];

	if (vmstack_register_vm("vmstack-vm 3\nname t\nend\n"))
		return 1;
	snprintf(path, sizeof(path), "/tmp/vmstack-%d.vm", (int)getpid());
	return access(path, R_OK) ? 2 : 0;
}
EOF
if ! cc -std=c11 -Wall -Wextra -Werror -I"$dest/usr/include" "$work/prog.c" \
	-L"$dest/usr/lib" -lvmstack -o "$work/prog" 2>"$work/cc.log"; then
	why="$why
$(sed 's/^/# cc: /' "$work/cc.log")"
else
	LD_LIBRARY_PATH="$dest/usr/lib" "$work/prog" &
	pid=$!
	wait $pid || why="$why
# a program linked with -lvmstack did not register its VM (exit $?)"
	[ -e "/tmp/vmstack-$pid.vm" ] && why="$why
# /tmp/vmstack-$pid.vm is still there after the program exited"
fi
if [ -z "$why" ]; then
	result PASS library
else
	echo "${why#?}"
	result FAIL library
fi

# The service units name the installed recorder, and systemd reads them
# without a complaint (the per-service one as an instance bound to a
# stand-in service).
unit=$dest/etc/systemd/system/vmstack-record@.service
why=""
grep -q "exec /usr/bin/vmstack-record .*--cgroup" "$unit" || why="# the unit does not run /usr/bin/vmstack-record --cgroup"
grep -q "^ExecStart=/usr/bin/vmstack-record .* -a " "${unit%@.service}.service" ||
	why="$why
# the whole-machine unit does not run /usr/bin/vmstack-record -a"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$work/units"
	printf '[Service]\nExecStart=/bin/true\n' >"$work/units/stand-in.service"
	cp "$unit" "$work/units/vmstack-record@stand-in.service"
	# Its command is checked as a path: the one installed under $dest.
	sed "s|=/usr/bin/|=$dest/usr/bin/|" "${unit%@.service}.service" >"$work/units/vmstack-record.service"
	said=$(cd "$work/units" && SYSTEMD_UNIT_PATH="$work/units:" \
		systemd-analyze verify --man=no ./vmstack-record@stand-in.service \
		./vmstack-record.service 2>&1) ||
		why="$why
# systemd-analyze verify failed"
	[ -z "$said" ] || why="$why
$(echo "$said" | sed 's/^/# systemd-analyze: /')"
fi
if [ -z "$why" ]; then
	result PASS systemd-unit
else
	echo "${why#
}"
	result FAIL systemd-unit
fi

# make uninstall removes every file make install put there.
make -C "$repo" -s uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1
left=$(cd "$dest" && find . \( -type f -o -type l \))
if [ -z "$left" ]; then
	result PASS uninstall
else
	echo "$left" | sed 's/^/# left: /'
	result FAIL uninstall
fi
