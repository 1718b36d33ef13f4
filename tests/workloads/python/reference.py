#!/usr/bin/python3.11
"""An independent reference for the profiler's shares on known.py.

    /usr/bin/python3.11 reference.py MODE SECONDS

Runs known.py's MODE in this process under cProfile and prints, one per
line on stdout,

    FUNCNAME PERCENT

for the mode's named work functions: each function's cumulative time
(cumtime: its own time plus its callees', "tottime + callees") as a
percentage of the summed cumulative time of the mode's top-level parts
(split: heavy+light+other; sandwich: outer+sort_work+sub_work; threads:
work_a+work_b; gen: gen_chunk+async_chunk). Nested functions are printed
against the same total, so e.g. keyfn <= sort_work.

Why cumtime: a sampling profiler's share for F is "samples whose stack
contains F" / samples. A sample's stack contains F exactly while F or
anything it called is running, which is what cumtime measures; tottime
counts only the time F itself is the innermost Python function, which
corresponds to the leaf share, and it would miss, for instance, all of
inner's time in vmsext.spin or all of sort_work's time in keyfn. cProfile
also counts a recursive function's time only once, at its outermost
call, like a sample that is counted once however often F is on its stack.
(For generators and coroutines cProfile adds up each resumption, which
again matches "on the stack" -- a suspended generator is not.)

The timer is time.thread_time, the CPU time of the calling thread: an
on-CPU sampler sees CPU time, not the wall time a thread spends waiting
for the GIL or blocked, and every thread gets its own Profile (cProfile
only follows the thread that enabled it).

cProfile's own cost per call and return lands in the functions' times, so
the shares of functions called very often (keyfn, replfn, the
generators) are a little distorted; the parts balanced by measured CPU
time (sandwich, gen) are balanced including that cost. forkexec is run
as split (all three of its images run split rounds), without forking.
"""
import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import known  # noqa: E402

# mode: (top-level parts, the total), [printed functions]
MODES = {
    "split": (["heavy", "light", "other"], ["heavy", "light", "other"]),
    "sandwich": (["outer", "sort_work", "sub_work"],
                 ["outer", "middle", "inner", "vmsext.spin",
                  "sort_work", "keyfn", "sub_work", "replfn"]),
    "threads": (["work_a", "work_b"], ["work_a", "work_b"]),
    "gen": (["gen_chunk", "async_chunk"],
            ["gen_chunk", "consume", "square", "source", "async_chunk", "task_work"]),
}
MODES["forkexec"] = MODES["split"]


def cumtimes(stats):
    """{name: cumtime} for known.py's functions and vmsext's builtins."""
    src = os.path.abspath(known.__file__)
    out = {}
    for (fname, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        if fname == src or (fname == "~" and "vmsext." in func):
            if fname == "~":	# "<built-in method vmsext.spin>"
                func = func.rstrip(">").split()[-1]
            out[func] = out.get(func, 0.0) + ct
    return out


def main(argv):
    if len(argv) != 3 or argv[1] not in MODES:
        print("usage: %s split|sandwich|threads|gen|forkexec SECONDS" % argv[0],
              file=sys.stderr)
        return 2
    mode, seconds = argv[1], float(argv[2])
    tops, names = MODES[mode]
    if mode == "forkexec":
        print("reference: forkexec is measured as split", file=sys.stderr)
        mode = "split"

    thread_profs = []

    def thread_hook(fn):
        def profiled(*args):
            p = cProfile.Profile(time.thread_time)
            thread_profs.append(p)
            return p.runcall(fn, *args)
        return profiled

    prof = cProfile.Profile(time.thread_time)
    prof.runcall(known.run, mode, seconds, thread_hook)
    stats = pstats.Stats(prof)
    for p in thread_profs:
        stats.add(p)
    ct = cumtimes(stats)
    total = sum(ct.get(n, 0.0) for n in tops) or 1.0
    for n in names:
        print("%s %.1f" % (n, 100.0 * ct.get(n, 0.0) / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
