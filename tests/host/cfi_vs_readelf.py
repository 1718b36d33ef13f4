#!/usr/bin/env python3
# The unwind rows vmstack derives from a file's CFI must agree with
# readelf's own decoding (--debug-dump=frames-interp) at every row where
# readelf gives CFA = rsp|rbp + N and the return address at CFA - 8.
# Prints "PASS cfi:NAME" or "FAIL cfi:NAME" per file.
import bisect, re, subprocess, sys

def check(dump, path):
    ours = subprocess.run([dump, path], capture_output=True, text=True)
    if ours.returncode:
        return False, "no CFI: " + ours.stderr.strip()
    rows = []
    for line in ours.stdout.splitlines()[1:]:
        m = re.match(r'([0-9a-f]+) cfa=(\d) off=(-?\d+) rbp=(\d) rbpoff=(-?\d+)', line)
        rows.append((int(m[1], 16), int(m[2]), int(m[3]), int(m[4]), int(m[5])))
    keys = [r[0] for r in rows]
    text = subprocess.run(['readelf', '--debug-dump=frames-interp', path],
                          capture_output=True, text=True).stdout
    cols, checked, bad, first = None, 0, 0, ""
    for line in text.splitlines():
        if line.strip().startswith('LOC'):
            cols = line.split()
            continue
        m = re.match(r'^([0-9a-f]{16}) (\S+)\s+(.*)$', line)
        mm = m and re.match(r'(rsp|rbp)\+(\d+)$', m[2])
        if not cols or not mm:
            continue
        regs = dict(zip(cols[2:], m[3].split()))
        if regs.get('ra') != 'c-8':
            continue
        loc = int(m[1], 16)
        i = bisect.bisect_right(keys, loc) - 1
        if i < 0:
            continue    # an FDE of a discarded function (address 0)
        r = rows[i]
        rbp = regs.get('rbp', 'u')
        want = ((1 if mm[1] == 'rsp' else 2, int(mm[2])),
                (1, int(rbp[1:])) if rbp.startswith('c') else (0, 0))
        got = ((r[1], r[2]), (r[3], r[4] if r[3] else 0))
        checked += 1
        if got != want:
            bad += 1
            first = first or "at %x readelf %s ours %s" % (loc, want, got)
    return checked > 0 and bad == 0, "%d rows checked, %d differ %s" % (checked, bad, first)

dump = sys.argv[1]
for path in sys.argv[2:]:
    ok, why = check(dump, path)
    print("# %s: %s" % (path, why))
    print("%s cfi:%s" % ("PASS" if ok else "FAIL", path.rsplit('/', 1)[-1]))
