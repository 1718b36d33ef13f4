#!/usr/bin/env python3
# synthetic-raw.py FILE [FORMAT]: a raw recording (user/raw_file.h, format
# FORMAT, default 9; 6 and 7 have the same header when no VM names are
# kept, without 8's count of call sites, 8 without 9's of VMs named
# across native frames) of
# 400,000 native samples without the module, for timing vmstack-report on
# the host (scripts/host-bench-report): 20,000 stacks of 10 to 40 frames
# (25 on average) at random addresses in libc's code, drawn with a long
# tail (an exponential over the stacks' order, mean 3,000), so that about
# 16,000 of them are sampled, most a few times and a few very often, as a
# busy program's stacks are. Seeded: the same file every time on one host.
import random, re, struct, sys

path = sys.argv[1]
fmt = sys.argv[2] if len(sys.argv) > 2 else '9'
sites = 'vmsites 0\n' if int(fmt) >= 8 else ''
sites += 'vmacross 0\n' if int(fmt) >= 9 else ''
# libc's code as this process maps it: a real file, so its symbols name
# the frames; placed at a fixed address, so the file does not vary by run.
for line in open('/proc/self/maps'):
    f = line.split()
    if len(f) >= 6 and f[1] == 'r-xp' and re.search(r'/libc[.-][^/]*so', f[5]):
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        offset = int(f[2], 16)
        break
else:
    sys.exit('synthetic-raw.py: no libc code mapping in /proc/self/maps')
size = hi - lo
base = 0x7f0000000000 + offset
maps = '%x-%x r-xp %08x %s %s %s\n' % (base, base + size, offset, f[3], f[4], f[5])

random.seed(7)
stacks = [[base + random.randrange(size) for _ in range(random.randint(10, 40))]
          for _ in range(20000)]
PID = 4242
with open(path, 'wb') as out:
    out.write(('VMSTACK-RAW %s\npid %d\ncomm bench\nfreq 999\nlost 0\n'
               'duration 1000000000\nmaps 1\n%svmnames 0\n%sthreads 0\nrecords\n'
               % (fmt, PID, maps, sites)).encode())
    for i in range(400000):
        s = stacks[min(int(random.expovariate(1 / 3000.0)), len(stacks) - 1)]
        # struct vmstack_rec_sample: VMSTACK_REC_SAMPLE (2), no flags, its
        # size; time, pid, tid, cpu; no kernel frames, len(s) user ones.
        out.write(struct.pack('<HHIQIIIHH', 2, 0, 32 + 8 * len(s), i, PID, PID, 0, 0, len(s)))
        out.write(struct.pack('<%dQ' % len(s), *s))
