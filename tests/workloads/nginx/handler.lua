-- An nginx content handler whose CPU split is known by construction: each
-- request sorts with a Lua comparator for 30 ms of CPU (sort_work, line
-- 11), hashes with ngx.md5 (C, through resty.core's FFI) for 30 ms
-- (md5_work, line 18) and runs plain Lua for 30 ms (lua_work, line 24):
-- a third each of the worker's time in the handler, whatever the
-- machine's speed.
local function desc(a, b) return a > b end
local t = {}
local clock = os.clock

local function sort_work(until_t)
  while clock() < until_t do
    for i = 1, 200 do t[i] = (i * 7919) % 1009 end
    table.sort(t, desc)
  end
end

local function md5_work(until_t)
  local s = string.rep('vmstack', 512)
  while clock() < until_t do ngx.md5(s) end
end

local s = 0
local function lua_work(until_t)
  while clock() < until_t do
    for i = 1, 2000 do s = s + i % 7 end
  end
  return s
end

-- ?names=1: instead, "LINE NAME" of each of this file's functions as
-- LuaJIT's own debug.getinfo names it (a call hook), a millisecond each.
if ngx.var.arg_names then
	local src, names = debug.getinfo(1, 'S').source, {}
	debug.sethook(function()
		local i = debug.getinfo(2, 'nS')
		if i and i.what == 'Lua' and i.name and i.source == src then
			names[i.linedefined] = i.name
		end
	end, 'c')
	sort_work(clock() + 0.001)
	md5_work(clock() + 0.001)
	lua_work(clock() + 0.001)
	debug.sethook()
	for line, name in pairs(names) do ngx.say(line, ' ', name) end
	return
end

sort_work(clock() + 0.030)
md5_work(clock() + 0.030)
ngx.say(lua_work(clock() + 0.030))
