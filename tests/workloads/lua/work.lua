-- A pure-Lua workload with two functions of known definition lines:
-- fib at line 3, loop_sum at line 8. Usage: luajit work.lua SECONDS [timed]
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function loop_sum(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

-- "timed": the script's own account of where its CPU time went, after a
-- first second of warm-up: the reference a profiler's shares must match.
local timed = arg[2] == "timed"
local clock = os.clock
local t = clock()
local spent_fib, spent_loop = 0, 0
while clock() - t < tonumber(arg[1] or 2) do
  local t0 = clock()
  fib(20)
  local t1 = clock()
  loop_sum(200000)
  if timed and t0 - t > 1 then
    spent_fib, spent_loop = spent_fib + t1 - t0, spent_loop + clock() - t1
  end
end
if timed then
  local all = spent_fib + spent_loop
  io.stderr:write(string.format("timed fib %.0f%% loop_sum %.0f%%\n",
    100 * spent_fib / all, 100 * spent_loop / all))
end
