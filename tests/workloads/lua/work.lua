-- A pure-Lua workload with two functions of known definition lines:
-- fib at line 3, loop_sum at line 8. Usage: luajit work.lua SECONDS
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function loop_sum(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local t = os.clock()
while os.clock() - t < tonumber(arg[1] or 2) do
  fib(20)
  loop_sum(200000)
end
