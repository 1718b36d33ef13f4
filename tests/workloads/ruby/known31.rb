# A known call tree for t_vm_ruby.sh: ruby3.1 known31.rb SECONDS [threads].
# <main> -> run -> heavy (Ruby only), and run -> sorter -> sort_by (C) ->
# the block (Ruby, yielded to by C) -> light: C between Ruby frames. The
# script measures its own thread's CPU time in heavy and in sorter and
# prints the split as "cpu_shares=HEAVY/SORTER" on stderr. With
# "threads": two Ruby threads, one in work_a, one in work_b, each timed by
# its own CPU clock: "threads cpu_shares=A/B".
def heavy(n)
  s = 0
  i = 0
  while i < n do s = (s + i * i) % 1_000_003; i += 1 end # HOT heavy
  s
end

def light(n)
  s = 0
  i = 0
  while i < n
    s = (s + i * 3) % 1_000_003
    i += 1
  end
  s
end

def sorter
  a = (1..60).to_a.shuffle
  a.sort_by { |x| light(300); x }
end

def cpu
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
end

def run(seconds)
  h = 0.0
  s = 0.0
  t_end = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t_end
    t = cpu
    heavy(20_000)
    u = cpu
    sorter
    v = cpu
    h += u - t
    s += v - u
  end
  t = h + s > 0 ? h + s : 1
  $stderr.puts format("cpu_shares=%.1f/%.1f", 100 * h / t, 100 * s / t)
end

def work_a(t_end)
  heavy(20_000) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t_end
end

def work_b(t_end)
  light(20_000) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < t_end
end

def threads(seconds)
  t_end = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
  ta = Thread.new { c = cpu; work_a(t_end); cpu - c }
  tb = Thread.new { c = cpu; work_b(t_end); cpu - c }
  a = ta.value
  b = tb.value
  t = a + b > 0 ? a + b : 1
  $stderr.puts format("threads cpu_shares=%.1f/%.1f", 100 * a / t, 100 * b / t)
end

if ARGV[1] == "threads"
  threads((ARGV[0] || 4).to_f)
else
  run((ARGV[0] || 4).to_f)
end
