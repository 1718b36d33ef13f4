#!/usr/bin/env python3
# A pprof file vmstack wrote, read by an independent reader (go tool pprof,
# Debian's golang-go), must hold the stacks and counts of the folded output
# of the same profile, sample for sample:
#   pprof_vs_folded.py X.pb.gz X.folded
#     compares the two; exit 0 if they agree, else 1 and why (guest tests);
#   pprof_vs_folded.py --host FAKE_RAW REPORT
#     writes a raw recording of known stacks (tests/tools/vmstack-fake-raw),
#     turns it into both with vmstack-report and compares them, checks
#     the function, file and line of its VM frames (a Python file whose
#     name has spaces, parentheses and colons among them: function lemur in
#     "/tmp/py dir/odd (v2):x.py" at line 7, from line 5), that native frames sit in their file's
#     mapping (build-id as readelf reads it) at their function's entry (as
#     nm gives it), the process labels (pid, comm) and the thread labels of --per-thread: prints
#     "PASS pprof:report" or "FAIL ...".
# Each pprof sample (-raw: location ids leaf first) is turned back into a
# folded line: a Location's function, file and line into the frame's text
# (as user/frame.c composes it), its mapping into the kind's suffix (a
# file's mapping: native); -top's total and -traces' stacks must agree too.
# -raw prints a Location's Line as "FUNCTION FILE:LINE s=START", where
# both may hold spaces: -traces, which prints functions alone, tells where
# the function ends.
import collections, os, re, shutil, subprocess, sys, tempfile

SUFFIX = {'': '', '[kernel]': '_[k]', '[vm]': '_[vm]', '[jit]': '_[j]'}
# What tests/tools/vmstack-fake-raw's VM names must become: (mapping,
# function, file, line).
KNOWN = {('[vm]', 'handler', 'app.py', 7), ('[vm]', 'handler', 'app.py', 9),
         ('[vm]', 'app.lua:12', 'app.lua', 12), ('[vm]', 'app.lua:0', 'app.lua', 0),
         ('[jit]', 'TRACE_3 app.lua:14', 'app.lua', 14), ('[vm]', 'pcall', '', 0),
         ('[vm]', 'lemur', '/tmp/py dir/odd (v2):x.py', 7)}
# The same Location as -raw prints it: with its function's first line.
ODD_LINE = ' lemur /tmp/py dir/odd (v2):x.py:7 s=5'


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
    return name.replace(';', ':') + SUFFIX['' if mapping.startswith('/') else mapping]


def trace_rows(path):
    """-traces: one (count, functions leaf first) a sample."""
    out = []
    for block in pprof('-traces', '-sample_index=samples', path).split('-----------+')[1:]:
        # Label lines ("   pid:  123") come before the count's.
        rows = [r for r in block.splitlines()[1:]
                if r.strip() and not re.match(r'^\s*\w+:\s', r)]
        if rows:
            m = re.match(r'^\s*(\d+)\s+(.*)$', rows[0])
            out.append((int(m[1]), (m[2],) + tuple(r.strip() for r in rows[1:])))
    return out


def split_line(text, functions):
    """-raw's "FUNCTION FILE" (either may hold spaces): the function is the
    shortest prefix -traces knows as one, else all up to the last space."""
    for i, c in enumerate(text):
        if c == ' ' and text[:i] in functions:
            return text[:i], text[i + 1:]
    name, _, file = text.rpartition(' ')
    return name, file


def read_raw(path):
    """-raw: the sample types, the period, each sample's values and location
    ids (leaf first), and each location's (mapping, function, file, line)."""
    types, period, samples, locs, maps, sect = [], 0, [], {}, {}, None
    labels = []
    functions = {f for _, fs in trace_rows(path) for f in fs}
    for line in pprof('-raw', path).splitlines():
        if line in ('Samples:', 'Locations', 'Mappings'):
            sect = line
        elif line.startswith('Period: '):
            period = int(line.split()[1])
        elif sect == 'Samples:' and not types:
            types = line.split()
        elif sect == 'Samples:':
            m = re.match(r'^([\d ]+): ([\d ]*)$', line)
            # Label lines: "  key:[value] key:[value]" (strings, then numbers).
            lm = re.findall(r'(\w+):\[([^\]]*)\]', line)
            if lm and samples and re.match(r'^\s+\w+:\[', line):
                samples[-1][2].update(lm)
                continue
            if not m:
                raise RuntimeError('unparsed sample: ' + line)
            samples.append(([int(v) for v in m[1].split()], m[2].split(), {}))
        elif sect == 'Locations':
            m = re.match(r'^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(.*):(\d+) s=\d+$', line)
            if not m:
                raise RuntimeError('unparsed location: ' + line)
            locs[m[1]] = (m[3],) + split_line(m[4], functions) + (int(m[5]), int(m[2], 16))
        elif sect == 'Mappings':
            f = line.split(' ')     # "ID: START/LIMIT/OFFSET FILE BUILDID FLAGS"
            maps[f[0].rstrip(':')] = (f[2], f[3], [int(v, 16) for v in f[1].split('/')])
    return types, period, samples, locs, maps


def places(pb):
    """Each native location's (function, file, build-id, file offset)."""
    locs, maps = read_raw(pb)[3:]
    out = set()
    for m, name, file, line, addr in locs.values():
        path, build_id, (start, limit, offset) = maps[m]
        if path.startswith('/'):
            out.add((name, path, build_id, addr - start + offset))
    return out


def thread_labels(pb):
    """The (thread, thread_name) labels of every sample."""
    return {(lb.get('thread'), lb.get('thread_name')) for _, _, lb in read_raw(pb)[2]}


def process_labels(pb):
    """The (pid, comm) labels of every sample."""
    return {(lb.get('pid'), lb.get('comm')) for _, _, lb in read_raw(pb)[2]}


def compare(pb, folded, known=set()):
    """Why the two disagree, or the locations lack @known ones, or None."""
    want = collections.Counter()
    for line in open(folded):
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        want[stack] += int(count)
    total = sum(want.values())
    types, period, samples, raw_locs, maps = read_raw(pb)
    locs = {i: (maps[l[0]][0],) + l[1:4] for i, l in raw_locs.items()}
    if types[:1] != ['samples/count']:
        return 'sample types %s' % types
    if not known <= set(locs.values()):
        return 'no location %s' % sorted(known - set(locs.values()))
    got, traces = collections.Counter(), collections.Counter()
    for values, ids, _ in samples:
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
    if collections.Counter(trace_rows(pb)) != traces:
        return '-traces differs from -raw'
    print('# %s: %d samples in %d stacks agree with %s' % (pb, total, len(want), folded))
    return None


def fake_raw_places(fake_raw):
    """(function, file, build-id, file offset) of the fake recording's
    native functions, from readelf and nm."""
    path = os.path.realpath(fake_raw)
    notes = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    build_id = re.search(r'Build ID: ([0-9a-f]+)', notes)[1]
    syms = subprocess.run(['nm', path], capture_output=True, text=True).stdout
    # The PIE's text segment has p_vaddr == p_offset: an address is its offset.
    addr = {f[2]: int(f[0], 16) for f in (l.split() for l in syms.splitlines()) if len(f) == 3}
    return {(n, path, build_id, addr[n]) for n in ('leaf_fn', 'mid_fn', 'main')}


def host(fake_raw, report):
    d = tempfile.mkdtemp()
    raw, pb, folded, pbt = (os.path.join(d, 'known' + s)
                            for s in ('.raw', '.pb.gz', '.folded', '.threads.pb.gz'))
    try:
        for cmd in ([fake_raw, raw], [report, '-i', raw, '-o', folded],
                    [report, '-i', raw, '-o', pb],
                    [report, '-i', raw, '-o', pbt, '--per-thread']):
            subprocess.run(cmd, check=True, capture_output=True)
        why = compare(pb, folded, KNOWN)
        if not why and not any(l.endswith(ODD_LINE) for l in pprof('-raw', pb).splitlines()):
            why = 'no Location "%s" in -raw' % ODD_LINE.strip()
        want, got = fake_raw_places(fake_raw), places(pb)
        if not why and want != got:
            why = 'native locations %s, readelf and nm say %s' % (sorted(got), sorted(want))
        if not why and thread_labels(pb) != {(None, None)}:
            why = 'thread labels without --per-thread: %s' % thread_labels(pb)
        procs = process_labels(pb)
        if not why and (len(procs) != 1 or next(iter(procs))[1] != 'fakeprog'
                        or not (next(iter(procs))[0] or '').isdigit()):
            why = 'process labels: %s' % procs
        labels = thread_labels(pbt)
        if not why and (len(labels) != 1 or next(iter(labels))[1] != 'fakeprog'
                        or not (next(iter(labels))[0] or '').isdigit()):
            why = 'thread labels with --per-thread: %s' % labels
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
