# Work inside a fiber and in the root fiber while it is suspended, for
# t_vm_fibers.sh: ruby3.1 fibers31.rb SECONDS. drive resumes the fiber
# (block in drive -> in_fiber -> fiber_work, and sort_by's C -> the block
# in in_fiber -> fiber_work), which does a round and suspends; then drive
# does root_work itself. The script measures its thread's CPU time inside
# the resumes and in root_work and prints "cpu_shares=FIBER/ROOT" on
# stderr.
def spin(n)
  s = 0
  i = 0
  while i < n do s = (s + i * i) % 1_000_003; i += 1 end
  s
end

def fiber_work
  spin(10_000)
end

def root_work
  spin(20_000)
end

def in_fiber
  loop do
    fiber_work
    [3, 1, 2].sort_by { |x| fiber_work if x == 2; x }
    Fiber.yield
  end
end

def cpu
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

def drive(seconds)
  f = Fiber.new { in_fiber }
  fw = 0.0
  rw = 0.0
  t_end = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t_end
    t = cpu
    f.resume
    u = cpu
    root_work
    v = cpu
    fw += u - t
    rw += v - u
  end
  t = fw + rw > 0 ? fw + rw : 1
  $stderr.puts format("cpu_shares=%.1f/%.1f", 100 * fw / t, 100 * rw / t)
end

drive((ARGV[0] || 4).to_f)
