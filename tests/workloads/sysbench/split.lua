-- A sysbench script whose split is known by construction: every event
-- runs two functions with the same body and the same count, work_a
-- (line 8) and work_b (line 14): 50/50 of the Lua time, in every worker
-- thread (each has its own lua_State). Usage:
--   sysbench split.lua --threads=2 --time=SECONDS run
local N = 20000

local function work_a()
  local s = 0
  for i = 1, N do s = s + i % 7 end
  return s
end

local function work_b()
  local s = 0
  for i = 1, N do s = s + i % 7 end
  return s
end

-- A value returned from event() would end the thread's run.
sum = 0
function event()
  sum = sum + work_a() + work_b()
end
