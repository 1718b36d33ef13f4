local function spin(t) local s = os.clock() local x = 0 while os.clock() - s < t do x = x + 1 end return x end
local function heavy() local x = spin(0.02) return x end
local function light() local x = spin(0.01) return x end
local function in_co() local x = spin(0.01) return x end
-- A known call tree for Lua 5.4 (line numbers are what the tests match):
-- CPU time 50% heavy (line 2), 25% light (line 3), 25% in_co (line 4),
-- which runs in a coroutine, on the resumer's C stack. No tail calls:
-- Lua reuses a tail-calling function's frame.
local co = coroutine.wrap(function() while true do in_co() coroutine.yield() end end)
local deadline = os.clock() + tonumber(arg[1] or 3)
while os.clock() < deadline do heavy() light() co() end
