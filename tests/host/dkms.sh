#!/bin/bash
# DKMS builds and installs the module from what make install-dkms puts in
# /usr/src, for a kernel whose headers are here, with nothing outside one
# temporary directory: dkms's source, build and install trees
# (--sourcetree, --dkmstree, --installtree), its signing key (mok_* in
# the environment, which dkms takes as its own settings), its temporary
# files (TMPDIR), and no depmod (--no-depmod). Checks the module's
# vermagic names the kernel, its version is VERSION's, it installs where
# dkms.conf says and is removed again; and that /usr/src, /var/lib/dkms
# and the kernel's /lib/modules are as they were.
# Prints "PASS dkms:NAME" or "FAIL dkms:NAME" per check, "# " lines saying
# why, and how long the build took.
# Usage: tests/host/dkms.sh [KVER]   (default: the test kernel, scripts/kver)
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
kver=${1:-$("$repo/scripts/kver")}
version=$(cat "$repo/VERSION")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

result() {
	echo "$1 dkms:$2"
}

if ! command -v dkms >/dev/null || [ "$(id -u)" != 0 ]; then
	echo "# dkms missing (run scripts/setup) or not root"
	result FAIL build
	exit 1
fi

# What must stay untouched, by name, size and time.
outside() {
	ls -la --time-style=full-iso /usr/src /var/lib/dkms "/lib/modules/$kver" 2>&1
}
before=$(outside)

make -C "$repo" -s install-dkms DESTDIR="$work/root" >"$work/make.log" 2>&1 ||
	{ sed 's/^/# /' "$work/make.log"; result FAIL build; exit 1; }
mkdir -p "$work/dkms" "$work/modules/$kver" "$work/tmp"
trees=(--sourcetree "$work/root/usr/src" --dkmstree "$work/dkms"
       --installtree "$work/modules")
run_dkms() {
	env -u modprobe_on_install TMPDIR="$work/tmp" mok_signing_key="$work/mok.key" \
		mok_certificate="$work/mok.pub" dkms "$@" "${trees[@]}" >>"$work/dkms.log" 2>&1
}

ko=""
start=$(date +%s%N)
if run_dkms add -m vmstack -v "$version" &&
	run_dkms build -m vmstack -v "$version" -k "$kver" -j 1; then
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "# dkms add and build for $kver: $((ms / 1000)).$((ms % 1000 / 100)) s"
	# Compressed as the kernel's own modules are (6.12: .ko.xz).
	ko=$(ls "$work/dkms/vmstack/$version/$kver/$(uname -m)/module/vmstack.ko"* 2>/dev/null)
	magic=$(modinfo -F vermagic "$ko" 2>&1)
	got=$(modinfo -F version "$ko" 2>&1)
	echo "# signer: $(modinfo -F signer "$ko")"
	if [ "${magic%% *}" = "$kver" ] && [ "$got" = "$version" ]; then
		result PASS build
	else
		echo "# vermagic '$magic' (want $kver ...), version '$got' (want $version)"
		result FAIL build
	fi
else
	tail -20 "$work/dkms.log" | sed 's/^/# /'
	find "$work/dkms" -name make.log -exec tail -20 {} \; | sed 's/^/# make.log: /'
	result FAIL build
fi

# Installed where dkms.conf says, and gone after dkms remove.
installed=$work/modules/$kver/updates/dkms/${ko##*/}
if [ -n "$ko" ] && run_dkms install -m vmstack -v "$version" -k "$kver" --no-depmod &&
	[ -e "$installed" ] && run_dkms remove -m vmstack -v "$version" --all --no-depmod &&
	[ ! -e "$installed" ] && [ ! -e "$work/dkms/vmstack/$version" ]; then
	result PASS install-remove
else
	tail -20 "$work/dkms.log" | sed 's/^/# /'
	result FAIL install-remove
fi

after=$(outside)
if [ "$before" = "$after" ]; then
	result PASS isolated
else
	diff <(echo "$before") <(echo "$after") | sed 's/^/# before < > after: /'
	result FAIL isolated
fi
