#!/usr/bin/python3.11
"""Python workloads with known call trees and CPU splits (CPython 3.11).

    /usr/bin/python3.11 known.py SECONDS MODE

(threads also runs on pyenv's 3.9 to 3.13: t_cpython_versions.sh.)

Every mode ends by itself once SECONDS have passed (the clock is checked
after every round; a round is a few milliseconds) and writes nothing to
stdout. On stderr it writes, at start, the hot lines of the mode's leaf
functions:

    hotline heavy=N light=M other=K        (split, forkexec)
    hotline keyfn=N replfn=M               (sandwich)
    hotline work_a=N work_b=M              (threads)
    hotline source=N square=M consume=K task_work=L   (gen)

(each function's whole hot loop -- FOR_ITER, body and JUMP_BACKWARD --
sits on that one line, found through its "# hot:NAME" marker), and at the
end one "done mode=... pid=..." line with the rounds run and, for the
modes split by measured CPU time, the shares each part actually got.

Modes and their intended split (of the mode's work, "stack contains F"):

  split     heavy 50%, light 25%, other 25%, by construction: the three
            run the same loop; every round is heavy(2), light(1), other(1)
            work units.
  sandwich  outer 50% (the C->Py->C->Py->C chain: outer -> vmsext.call
            -> middle -> vmsext.call -> inner -> vmsext.spin, nearly all
            of it in the native leaf vmsext_spin_c; middle and inner are
            also ~50%), sort_work 25% (sorted(data, key=keyfn); keyfn's
            Python loop is nearly all of it), sub_work 25% (re.sub(pattern,
            replfn, text); replfn's Python loop is nearly all of it).
            C and Python work cannot be balanced by counting, so each
            round runs the part furthest behind its share of the process
            CPU time measured so far (time.process_time around each part).
  threads   thread "work_a" in work_a 2/3 (66.7%), thread "work_b" in
            work_b 1/3 (33.3%) of the workers' CPU. Both run the same loop
            in 1-unit chunks; each measures its chunks' CPU time
            (time.thread_time) and waits on a condition variable while it
            is more than 2 ms (per share) ahead of the other, so the ratio
            holds in CPU time whatever the GIL hand-over and the per-unit
            cost of each thread (which differed by up to 40% between the
            threads when balanced by work counts). Together they use about
            one CPU (the GIL); waiting blocks, it does not spin. The main
            thread only joins them: blocked, native frames only, no CPU.
            The threads' kernel names (comm) are work_a and work_b.
  gen       gen_chunk 50% (consume() summing square(source()), a generator
            pipeline: consume -> square -> source on the stack; how the
            50% divides between the three as leaves is not fixed by
            construction: cProfile puts consume ~12, square ~25, source
            ~12), async_chunk 50% (an event loop running the task
            task_work(), whose Python loop chunks are separated by await
            asyncio.sleep(0); task_work itself is nearly all of it, the
            rest is the event loop). Balanced by measured CPU as in
            sandwich.
  forkexec  the process forks at once. The child runs in_child -> the split
            rounds until the end and exits (os._exit). The parent runs
            before_exec -> the split rounds for the first half, then execs
            sys.executable (/usr/bin/python3.11) on this file in mode split
            for the time left (its frames have neither in_child nor
            before_exec on the stack). The exec'd image, like every mode,
            reaps any child before it exits, so the child, which stops at
            the same deadline, is waited for: no orphan, no zombie.
            Three images, each with heavy/light/other at 50/25/25.

sandwich needs vmsext (vmsext.c, built by make tools into build/workloads): its
directory comes from the environment variable VMSEXT_DIR.

reference.py imports this file (nothing runs on import) and calls run().
"""
import os
import re  # here: in sub_work its first import (deep, once) was sub_work's
import sys
import time

UNIT = 20000		# one work unit: ~0.9 ms of Python loop on the host

# ---------------------------------------------------------------- split
# The same loop three times; each whole loop on its marked line.


def heavy(units):
    acc = 0
    for i in range(units * UNIT): acc += i * 7 % 11  # hot:heavy
    return acc


def light(units):
    acc = 0
    for i in range(units * UNIT): acc += i * 7 % 11  # hot:light
    return acc


def other(units):
    acc = 0
    for i in range(units * UNIT): acc += i * 7 % 11  # hot:other
    return acc


def split_round():
    heavy(2)
    light(1)
    other(1)


def run_split(deadline):
    rounds = 0
    while True:
        split_round()
        rounds += 1
        if time.monotonic() >= deadline:
            return rounds


def run_weighted(deadline, parts):
    """Run (function, share) parts until deadline, each round the one
    furthest behind its share of the CPU time measured so far. Returns
    the CPU seconds each part got."""
    spent = [0.0] * len(parts)
    runs = [0] * len(parts)
    while True:
        i = min(range(len(parts)), key=lambda j: spent[j] / parts[j][1])
        t0 = time.process_time()
        parts[i][0]()
        spent[i] += time.process_time() - t0
        runs[i] += 1
        if time.monotonic() >= deadline and min(runs) > 0:
            return spent

# ------------------------------------------------------------- sandwich


SPIN_N = 1000000	# ~0.8 ms in vmsext_spin_c
SORT_DATA = [(i * 7919) % 1000 for i in range(50)]
SUB_TEXT = " ".join("w %d" % ((i * 37) % 1000) for i in range(50))
SUB_PATTERN = r"\d+"
KEY_N = 400		# loop turns per keyfn/replfn call: ~20 us, few calls
_vmsext = None


def inner():
    return _vmsext.spin(SPIN_N)


def middle():
    return _vmsext.call(inner)


def outer():
    return _vmsext.call(middle)


def keyfn(x):
    acc = 0
    for i in range(KEY_N): acc += (x ^ i) % 7  # hot:keyfn
    return acc * 1000 + x


def sort_work():
    return sorted(SORT_DATA, key=keyfn)


def replfn(m):
    x = int(m.group())
    acc = 0
    for i in range(KEY_N): acc += (x ^ i) % 7  # hot:replfn
    return str(acc)


def sub_work():
    return re.sub(SUB_PATTERN, replfn, SUB_TEXT)


def load_vmsext():
    global _vmsext
    d = os.environ.get("VMSEXT_DIR")
    if d and d not in sys.path:
        sys.path.insert(0, d)
    import vmsext
    _vmsext = vmsext


def run_sandwich(deadline):
    load_vmsext()
    return run_weighted(deadline, [(outer, 0.50), (sort_work, 0.25), (sub_work, 0.25)])

# -------------------------------------------------------------- threads


SHARE = (2.0, 1.0)	# work_a : work_b, in thread CPU time
LEAD = 0.002		# CPU seconds (per share unit) a worker may run ahead


def work_a(units):
    acc = 0
    for i in range(units * UNIT): acc += i * 7 % 11  # hot:work_a
    return acc


def work_b(units):
    acc = 0
    for i in range(units * UNIT): acc += i * 7 % 11  # hot:work_b
    return acc


def set_thread_name(name):
    """The kernel's name for this thread (comm), so a profile can tell the
    threads apart; CPython 3.11 does not set it. Best effort."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, ctypes.c_char_p(name.encode()), 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


class Lockstep:
    """The two workers' CPU time so far, each divided by its share."""
    def __init__(self):
        import threading
        self.cond = threading.Condition()
        self.norm = [0.0, 0.0]
        self.chunks = [0, 0]
        self.done = False


def thread_body(idx, work, step, deadline):
    set_thread_name(work.__name__)
    while time.monotonic() < deadline:
        with step.cond:
            while (step.norm[idx] > step.norm[1 - idx] + LEAD and not step.done
                   and time.monotonic() < deadline):
                step.cond.wait(0.05)
        t0 = time.thread_time()
        work(1)
        used = time.thread_time() - t0
        with step.cond:
            step.norm[idx] += used / SHARE[idx]
            step.chunks[idx] += 1
            step.cond.notify_all()
    with step.cond:
        step.done = True
        step.cond.notify_all()


def run_threads(deadline, thread_hook=None):
    """Returns the workers' CPU seconds in work_a, work_b and their chunks."""
    import threading
    step = Lockstep()
    ts = []
    for idx, work in enumerate([work_a, work_b]):
        target = thread_hook(thread_body) if thread_hook else thread_body
        ts.append(threading.Thread(target=target, name=work.__name__,
                                   args=(idx, work, step, deadline)))
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return [n * s for n, s in zip(step.norm, SHARE)], step.chunks

# ------------------------------------------------------------------ gen


GEN_N = 4000		# items per gen_chunk: ~1 ms


def source(n):
    for i in range(n): yield i * i % 1009  # hot:source


def square(it):
    for x in it: yield x * x % 1013  # hot:square


def consume(n):
    total = 0
    for y in square(source(n)): total += y  # hot:consume
    return total


async def task_work(chunks):
    import asyncio
    acc = 0
    for _ in range(chunks):
        for i in range(UNIT): acc += i * 7 % 11  # hot:task_work
        await asyncio.sleep(0)
    return acc


def gen_chunk():
    return consume(GEN_N)


def run_gen(deadline):
    import asyncio
    loop = asyncio.new_event_loop()

    def async_chunk():
        return loop.run_until_complete(task_work(4))
    try:
        # One round of each first, outside the split: the event loop's
        # first run imports and sets up more than any later one, and
        # under a slow emulator that one-time cost skewed the balance.
        # Nor does it shorten the split: on the debug kernel 3.10's took
        # most of 12 s, and the rounds left were too few to weigh.
        t0 = time.monotonic()
        gen_chunk()
        async_chunk()
        deadline += time.monotonic() - t0
        return run_weighted(deadline, [(gen_chunk, 0.5), (async_chunk, 0.5)])
    finally:
        loop.close()

# ------------------------------------------------------------- forkexec


def in_child(deadline):
    return run_split(deadline)


def before_exec(until):
    return run_split(until)


def run_forkexec(start, seconds):
    deadline = start + seconds
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            in_child(deadline)
            code = 0
        finally:
            sys.stderr.flush()
            os._exit(code)
    before_exec(start + seconds / 2)
    left = max(deadline - time.monotonic(), 0.0)
    exe = sys.executable or "/usr/bin/python3.11"
    print("done mode=forkexec pid=%d child=%d exec_left=%.3f" % (os.getpid(), pid, left),
          file=sys.stderr, flush=True)
    try:
        os.execv(exe, [exe, os.path.abspath(__file__), "%.3f" % left, "split"])
    except OSError as e:
        print("known.py: exec %s: %s" % (exe, e), file=sys.stderr)
        reap_children()
        sys.exit(1)

# ----------------------------------------------------------------- main


HOT = {
    "split": ["heavy", "light", "other"],
    "forkexec": ["heavy", "light", "other"],
    "sandwich": ["keyfn", "replfn"],
    "threads": ["work_a", "work_b"],
    "gen": ["source", "square", "consume", "task_work"],
}


def hotlines(names):
    """Line numbers of the "# hot:NAME" markers in this file."""
    found = {}
    with open(os.path.abspath(__file__)) as f:
        for no, line in enumerate(f, 1):
            for n in names:
                if line.rstrip().endswith("# hot:" + n):
                    found[n] = no
    return [(n, found[n]) for n in names]


def run(mode, seconds, thread_hook=None):
    """Run a mode for seconds; returns what it measured (see the modes)."""
    start = time.monotonic()
    deadline = start + seconds
    if mode == "split":
        return run_split(deadline)
    if mode == "sandwich":
        return run_sandwich(deadline)
    if mode == "threads":
        return run_threads(deadline, thread_hook)
    if mode == "gen":
        return run_gen(deadline)
    if mode == "forkexec":
        return run_forkexec(start, seconds)
    raise ValueError("unknown mode %r" % mode)


def reap_children():
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def shares(spent):
    total = sum(spent) or 1.0
    return "/".join("%.1f" % (100.0 * s / total) for s in spent)


def main(argv):
    if len(argv) != 3 or argv[2] not in HOT:
        print("usage: %s SECONDS split|sandwich|threads|gen|forkexec" % argv[0],
              file=sys.stderr)
        return 2
    seconds = float(argv[1])
    mode = argv[2]
    print("hotline " + " ".join("%s=%d" % nl for nl in hotlines(HOT[mode])),
          file=sys.stderr, flush=True)
    got = run(mode, seconds)
    reap_children()
    if mode in ("sandwich", "gen"):
        got = "cpu_shares=" + shares(got)
    elif mode == "threads":
        got = "cpu_shares=%s chunks=%d/%d" % ((shares(got[0]),) + tuple(got[1]))
    else:
        got = "rounds=%d" % got
    print("done mode=%s pid=%d %s" % (mode, os.getpid(), got), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
