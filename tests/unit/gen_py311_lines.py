#!/usr/bin/python3.11
# SPDX-License-Identifier: GPL-2.0
"""
Writes tests/unit/py311_lines_vectors.h: CPython 3.11 location tables
(co_linetable) and, for each code unit, the line CPython itself reports
(co_lines()), the reference for user/vm/cpython_lines.c.

    /usr/bin/python3.11 tests/unit/gen_py311_lines.py > tests/unit/py311_lines_vectors.h

Debian's 3.11 on purpose: the vectors are what that interpreter compiles.
Every code object of the source below is a vector (comprehensions, lambdas
and nested functions are code objects of their own), once as compiled
normally and once under -X no_debug_ranges, whose tables have no columns;
and one table made up here (lines below 0), read by CPython through
code.replace().
"""
import ast
import os
import subprocess
import sys

if sys.version_info[:2] != (3, 11):
    sys.exit("gen_py311_lines.py: needs CPython 3.11, not %s" % sys.version.split()[0])

# A jump this big takes a 4-chunk signed varint (more than 2**17 lines).
BIG = 200000


def source():
    """The source compiled: each function stresses one part of the format."""
    s = '''\
import os

def multi_line(a, b):
    x = (a +
         b *
         (a -
          b))
    return os.path.join(str(x),
                        str(a),
                        str(b))

def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        while total < i:
            total += 1
            if total > 100:
                break
        else:
            total -= 1
    return total

def handlers(path):
    try:
        f = open(path)
    except (OSError, ValueError) as e:
        print(e)
        return None
    else:
        with f:
            data = f.read()
    finally:
        print("done")
    return data

def comprehensions(xs):
    a = [x * 2 for x in xs if x]
    b = {x: [y for y in range(x)] for x in xs}
    c = {x for x in
         xs}
    return a, b, c, sum(x for x in xs)

def closure(n):
    def inner(k):
        return n + k
    return inner

square = lambda v: (v *
                    v)

def gen(n):
    for i in range(n):
        yield i
    yield from range(n)

async def coro(x):
    await x
    async with x as y:
        async for z in y:
            print(z)

@staticmethod
def decorated(a):
    return a
'''
    # Columns past 127 need the long form, past 4095 a 3-chunk varint.
    s += 'def long_lines(x):\n'
    s += '    y = [' + '1, ' * 60 + 'len(x)] + [' + '2, ' * 60 + 'abs(x)]\n'
    s += '    z = "' + 'a' * 5000 + '" + str(x) + str(y)\n'
    s += '    return y, z\n'
    # Far-apart lines: forward jumps, and loops whose jump back goes up.
    s += '\ndef big_jumps(x):\n    a = x\n' + '\n' * 3000
    s += '    for i in range(a):\n' + '\n' * 5000
    s += '        a += i\n' + '\n' * 70
    s += '    while a:\n' + '\n' * BIG
    s += '        a -= 1\n'
    s += '    return a\n'
    # A function that starts far down the file.
    s += '\n' * 1500
    s += 'def far_down(a,\n             b):\n    return (a,\n            b)\n'
    return s


def lines_of(co):
    """The line of each code unit, from co_lines() (byte ranges; None: -1)."""
    n = len(co.co_code) // 2
    out = [None] * n
    end = 0
    for start, stop, line in co.co_lines():
        assert start == end and start % 2 == 0 and stop % 2 == 0, (co, start)
        for i in range(start // 2, stop // 2):
            out[i] = -1 if line is None else line
        end = stop
    assert end == len(co.co_code), co
    return out


def code_objects(co, prefix=""):
    name = prefix + co.co_qualname
    yield name, co
    for c in co.co_consts:
        if hasattr(c, "co_linetable"):
            yield from code_objects(c, prefix)


def collect(suffix=""):
    """(name, firstlineno, table, lines) of every code object, as plain data."""
    co = compile(source(), "<py311_lines>", "exec")
    return [(name + suffix, c.co_firstlineno, bytes(c.co_linetable), lines_of(c))
            for name, c in code_objects(co)]


def varint(u):
    out = []
    while u >= 64:
        out.append(64 | (u & 63))
        u >>= 6
    return bytes(out + [u])


def svarint(d):
    return varint(((-d) << 1) | 1 if d < 0 else d << 1)


def crafted(co):
    """
    A table no compiler writes, but CPython reads: the running line goes
    below 0 (co_lines() says None there) and comes back, to 0 too. It
    replaces the table of @co, so it covers as many code units.
    """
    n = len(co.co_code) // 2
    deltas = [-3, -1, 0, 2, None, 5, -8, None, None, 10, 0]  # None: no location
    table, units, k = b"", 0, 0
    while units < n:
        length = min(1 + k % 3, n - units)
        d = deltas[k % len(deltas)]
        if d is None:
            table += bytes([0x80 | 15 << 3 | (length - 1)])
        elif k % 2:
            table += bytes([0x80 | 14 << 3 | (length - 1)]) + svarint(d)
            table += varint(0) + varint(1) + varint(2)
        else:
            table += bytes([0x80 | 13 << 3 | (length - 1)]) + svarint(d)
        units += length
        k += 1
    c = co.replace(co_linetable=table, co_firstlineno=2)
    return "crafted: lines below 0", c.co_firstlineno, table, lines_of(c)


def entry_codes(table):
    """The code of each entry: entries start at bytes with bit 7 set."""
    return [(b >> 3) & 15 for b in table if b & 0x80]


def c_list(values, fmt, indent="\t", width=100):
    out, line = [], indent
    for v in values:
        item = fmt % v + ","
        if len((line + item).expandtabs()) > width and line != indent:
            out.append(line.rstrip())
            line = indent
        line += item + " "
    if line != indent:
        out.append(line.rstrip())
    return "\n".join(out)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--repr":
        assert "no_debug_ranges" in sys._xoptions
        print(repr(collect(" (no_debug_ranges)")))
        return
    vectors = collect()
    nodebug = subprocess.run([sys.executable, "-X", "no_debug_ranges",
                              os.path.abspath(__file__), "--repr"],
                             check=True, capture_output=True, text=True).stdout
    vectors += ast.literal_eval(nodebug)
    loops = next(c for name, c in code_objects(compile(source(), "<py311_lines>", "exec"))
                 if name == "loops")
    vectors.append(crafted(loops))

    seen = {}
    for _, _, table, _ in vectors:
        for code in entry_codes(table):
            seen[code] = seen.get(code, 0) + 1
    missing = [c for c in range(16) if c not in seen]
    assert not missing, "no entry of code %s: vary the source" % missing
    assert any(l > 1000 for _, l, _, _ in vectors)
    assert any(-1 in lines for _, _, _, lines in vectors)
    assert 0 in vectors[-1][3] and -1 in vectors[-1][3]

    p = print
    p("/* SPDX-License-Identifier: GPL-2.0 */")
    p("/*")
    p(" * GENERATED by tests/unit/gen_py311_lines.py with Debian's CPython %s;"
      % sys.version.split()[0])
    p(" * do not edit. Regenerate with:")
    p(" *   /usr/bin/python3.11 tests/unit/gen_py311_lines.py \\")
    p(" *           > tests/unit/py311_lines_vectors.h")
    p(" *")
    p(" * %d code objects: their co_linetable, co_firstlineno, and per code unit"
      % len(vectors))
    p(" * the line co_lines() gives (-1: None). Entries per code:")
    for half in (range(8), range(8, 16)):
        p(" *  " + ", ".join("%d: %d" % (c, seen[c]) for c in half))
    p(" */")
    p("#ifndef VMSTACK_PY311_LINES_VECTORS_H")
    p("#define VMSTACK_PY311_LINES_VECTORS_H")
    p("")
    p("#include <stddef.h>")
    p("")
    p("struct py311_lines_vector {")
    p("\tconst char *name;")
    p("\tint firstlineno;")
    p("\tconst unsigned char *table;")
    p("\tsize_t len;")
    p("\tconst int *lines;\t/* of each code unit */")
    p("\tlong n;\t\t\t/* code units */")
    p("};")
    for i, (name, first, table, lines) in enumerate(vectors):
        p("")
        p("/* %s */" % name)
        p("static const unsigned char py311_table_%d[] = {" % i)
        p(c_list(table, "0x%02x"))
        p("};")
        p("static const int py311_lines_%d[] = {" % i)
        p(c_list(lines, "%d"))
        p("};")
    p("")
    p("static const struct py311_lines_vector py311_lines_vectors[] = {")
    for i, (name, first, table, lines) in enumerate(vectors):
        p('\t{ "%s", %d,' % (name, first))
        p("\t  py311_table_%d, sizeof(py311_table_%d), py311_lines_%d, %d },"
          % (i, i, i, len(lines)))
    p("};")
    p("")
    p("#endif")


if __name__ == "__main__":
    main()
