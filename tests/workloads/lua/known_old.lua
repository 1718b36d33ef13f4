local function spin(t) local s = os.clock() local x = 0 while os.clock() - s < t do x = x + 1 end return x end
local function heavy() local x = spin(0.02) return x end
local function cmp(a, b) spin(0.02) return a < b end
local function sorter() local t = {2, 1} table.sort(t, cmp) return t[1] end
-- A known call tree for Lua 5.1 and 5.3 (line numbers are what the tests
-- match): CPU time 50% heavy (line 2), 50% cmp (line 3), the comparator
-- table.sort (C) calls once for two elements: C -> Lua -> C -> Lua, with
-- sorter (line 4) above the sort's C frames. No tail calls: Lua reuses a
-- tail-calling function's frame.
local deadline = os.clock() + tonumber(arg[1] or 3)
while os.clock() < deadline do heavy() sorter() end
