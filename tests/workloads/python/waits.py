# Where Python threads wait (t_off_cpu.sh): four threads, each almost
# always blocked, each in its own way, so each holds about a quarter of
# the time off CPU:
#   main     holds a lock and sleeps with it (time.sleep, 20 ms), then
#            lets it go for a moment;
#   sleeper  time.sleep(0.03) in a loop;
#   selector select.select() on a pipe nobody writes, 10 ms at a time;
#   locker   takes the lock main holds (it waits for main), lets it go.
# Usage: waits.py SECONDS
import select
import sys
import threading
import time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3
end = time.monotonic() + seconds
lock = threading.Lock()


def sleeper():
    while time.monotonic() < end:
        time.sleep(0.03)


def selector():
    r, w = __import__("os").pipe()
    while time.monotonic() < end:
        select.select([r], [], [], 0.01)


def locker():
    while time.monotonic() < end:
        with lock:
            pass
        time.sleep(0.0005)


def holder():
    while time.monotonic() < end:
        with lock:
            time.sleep(0.02)
        time.sleep(0.0005)


threads = [threading.Thread(target=f, name=f.__name__) for f in (sleeper, selector, locker)]
for t in threads:
    t.start()
holder()
for t in threads:
    t.join()
