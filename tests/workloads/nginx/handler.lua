-- An nginx content handler whose CPU split is known by construction: each
-- request sorts with a Lua comparator for 40 ms of CPU (sort_work, line 9)
-- and runs plain Lua for 40 ms (lua_work, line 16), so 50/50 of the
-- worker's time in Lua, whatever the machine's speed.
local function desc(a, b) return a > b end
local t = {}
local clock = os.clock

local function sort_work(until_t)
  while clock() < until_t do
    for i = 1, 200 do t[i] = (i * 7919) % 1009 end
    table.sort(t, desc)
  end
end

local function lua_work(until_t)
  local s = 0
  while clock() < until_t do
    for i = 1, 2000 do s = s + i % 7 end
  end
  return s
end

sort_work(clock() + 0.040)
ngx.say(lua_work(clock() + 0.040))
