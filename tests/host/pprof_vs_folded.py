#!/usr/bin/env python3
# A pprof file vmstack wrote, read by an independent reader (go tool pprof,
# Debian's golang-go), must hold the stacks and counts of the folded output
# of the same profile, sample for sample:
#   pprof_vs_folded.py X.pb.gz X.folded
#     compares the two; exit 0 if they agree, else 1 and why (guest tests);
#   pprof_vs_folded.py --host FAKE_RAW REPORT
#     writes a raw recording of known stacks (tests/tools/vmstack-fake-raw),
#     turns it into both with vmstack-report and compares them, and checks
#     how its VM names were split: prints "PASS pprof:report" or "FAIL ...".
# Each pprof sample (-raw: location ids leaf first) is turned back into a
# folded line: a Location's function, file and line into the frame's name
# (the reverse of user/output/pprof.c's split), its mapping into the kind's
# suffix; -top's total and -traces' stacks must agree too.
import collections, os, re, shutil, subprocess, sys, tempfile

SUFFIX = {'': '', '[kernel]': '_[k]', '[vm]': '_[vm]', '[jit]': '_[j]'}
# What tests/tools/vmstack-fake-raw's VM names must become: (mapping,
# function, file, line).
KNOWN = {('[vm]', 'handler', 'app.py', 7), ('[vm]', 'handler', 'app.py', 9),
         ('[vm]', 'app.lua:12', 'app.lua', 12), ('[vm]', 'app.lua:0', 'app.lua', 0),
         ('[jit]', 'TRACE_3 app.lua:14', 'app.lua', 14), ('[vm]', 'pcall', '', 0)}


def pprof(*args):
    if not shutil.which('go'):
        raise RuntimeError('go not installed (scripts/setup installs golang-go)')
    r = subprocess.run(['go', 'tool', 'pprof'] + list(args), capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError('go tool pprof %s: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout


def folded_frame(mapping, name, file, line):
    """A location as collapsed stacks name it: the reverse of
    user/output/pprof.c's split, and its mapping as the kind's suffix."""
    if file and not name.endswith('%s:%d' % (file, line)):
        name = '%s (%s:%d)' % (name, file, line)
    return name.replace(';', ':') + SUFFIX[mapping]


def read_raw(path):
    """-raw: the sample types, the period, each sample's values and location
    ids (leaf first), and each location's (mapping, function, file, line)."""
    types, period, samples, locs, maps, sect = [], 0, [], {}, {}, None
    for line in pprof('-raw', path).splitlines():
        if line in ('Samples:', 'Locations', 'Mappings'):
            sect = line
        elif line.startswith('Period: '):
            period = int(line.split()[1])
        elif sect == 'Samples:' and not types:
            types = line.split()
        elif sect == 'Samples:':
            m = re.match(r'^([\d ]+): ([\d ]*)$', line)
            if not m:
                raise RuntimeError('unparsed sample: ' + line)
            samples.append(([int(v) for v in m[1].split()], m[2].split()))
        elif sect == 'Locations':
            m = re.match(r'^\s*(\d+): 0x[0-9a-f]+ (?:M=(\d+) )?(.*) (\S*):(\d+) s=\d+$', line)
            if not m:
                raise RuntimeError('unparsed location: ' + line)
            locs[m[1]] = (m[2], m[3], m[4], int(m[5]))
        elif sect == 'Mappings':
            f = line.split(' ')     # "ID: START/LIMIT/OFFSET FILE BUILDID FLAGS"
            maps[f[0].rstrip(':')] = f[2]
    return types, period, samples, {i: (maps[l[0]],) + l[1:] for i, l in locs.items()}


def compare(pb, folded, known=set()):
    """Why the two disagree, or the locations lack @known ones, or None."""
    want = collections.Counter()
    for line in open(folded):
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        want[stack] += int(count)
    total = sum(want.values())
    types, period, samples, locs = read_raw(pb)
    if types[:1] != ['samples/count']:
        return 'sample types %s' % types
    if not known <= set(locs.values()):
        return 'no location %s' % sorted(known - set(locs.values()))
    got, traces = collections.Counter(), collections.Counter()
    for values, ids in samples:
        got[';'.join(folded_frame(*locs[i]) for i in reversed(ids))] += values[0]
        traces[(values[0], tuple(locs[i][1] for i in ids))] += 1
        if len(types) > 1 and values[1] != values[0] * period:
            return 'CPU time %d of %d samples, period %d' % (values[1], values[0], period)
    if got != want:
        diff = sorted((got - want).items())[:3] + sorted((want - got).items())[:3]
        return 'stacks differ (pprof, then folded): %s' % diff
    m = re.search(r'of (\d+) total', pprof('-top', '-sample_index=samples', pb))
    if not m or int(m[1]) != total:
        return '-top total %s, folded %d' % (m and m[1], total)
    # -traces: one block per sample, its count then its functions, leaf first.
    seen = collections.Counter()
    for block in pprof('-traces', '-sample_index=samples', pb).split('-----------+')[1:]:
        rows = [r for r in block.splitlines()[1:] if r.strip()]
        if rows:
            m = re.match(r'^\s*(\d+)\s+(.*)$', rows[0])
            seen[(int(m[1]), (m[2],) + tuple(r.strip() for r in rows[1:]))] += 1
    if seen != traces:
        return '-traces differs from -raw'
    print('# %s: %d samples in %d stacks agree with %s' % (pb, total, len(want), folded))
    return None


def host(fake_raw, report):
    d = tempfile.mkdtemp()
    raw, pb, folded = (os.path.join(d, 'known' + s) for s in ('.raw', '.pb.gz', '.folded'))
    try:
        for cmd in ([fake_raw, raw], [report, '-i', raw, '-o', folded],
                    [report, '-i', raw, '-o', pb]):
            subprocess.run(cmd, check=True, capture_output=True)
        why = compare(pb, folded, KNOWN)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
        why = str(e)
    finally:
        shutil.rmtree(d)
    print('# ' + (why or 'every stack and count agrees'))
    print('%s pprof:report' % ('FAIL' if why else 'PASS'))


if __name__ == '__main__':
    if sys.argv[1] == '--host':
        host(sys.argv[2], sys.argv[3])
    else:
        try:
            why = compare(sys.argv[1], sys.argv[2])
        except (OSError, RuntimeError) as e:
            why = str(e)
        print('# ' + (why or 'agree'))
        sys.exit(1 if why else 0)
