#!/bin/bash
# user/vm/cpython/debug_offsets_table.c is what its generator
# (tests/tools/pydebugoffsets-gen.py) writes from the headers of the
# builds scripts/setup provides: 3.13's struct _Py_DebugOffsets in pyenv's
# 3.13.0 (internal/pycore_runtime.h), 3.14's and 3.15's in Debian's from
# sid (internal/pycore_debug_offsets.h, scripts/sid-python). A header missing
# fails: the table would go unchecked. Prints "PASS pytable:debug-offsets"
# or "FAIL ..." and the difference.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
h313=$(ls /root/.pyenv/versions/3.13.*/include/python3.13/internal/pycore_runtime.h 2>/dev/null | head -1)
h314=/opt/vmstack/python3.14/usr/include/python3.14/internal/pycore_debug_offsets.h
h315=/opt/vmstack/python3.15/usr/include/python3.15/internal/pycore_debug_offsets.h
for h in "$h313" "$h314" "$h315"; do
	if [ -z "$h" ] || [ ! -r "$h" ]; then
		echo "# no ${h:-3.13 header}: scripts/setup provides the pyenv builds and sid's 3.14 and 3.15"
		echo "FAIL pytable:debug-offsets"
		exit 0
	fi
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if python3 "$repo/tests/tools/pydebugoffsets-gen.py" "3.13=$h313" "3.14=$h314" "3.15=$h315" >"$out" &&
	cmp -s "$repo/user/vm/cpython/debug_offsets_table.c" "$out"; then
	echo "PASS pytable:debug-offsets"
else
	diff -u "$repo/user/vm/cpython/debug_offsets_table.c" "$out" | sed 's/^/# /'
	echo "FAIL pytable:debug-offsets"
fi
