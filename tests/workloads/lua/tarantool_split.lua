-- A Tarantool script whose CPU split is known by construction: every
-- 40 ms round, the main fiber sorts with a Lua comparator for 20 ms
-- (sort_work, line 18) and encodes JSON for 10 ms (json_work, line 27); a
-- second fiber runs plain Lua for 10 ms (lua_work, line 34). So 50/25/25,
-- whatever the machine's speed. It prints "running" when the work starts
-- (Tarantool's own start-up is not part of the split). Usage:
--   tarantool tarantool_split.lua SECONDS [joff] [jitp-output-file]
local clock = require('clock')
local fiber = require('fiber')
local json = require('json')

local secs = tonumber(arg[1]) or 5
if arg[2] == 'joff' then jit.off() end

local function desc(a, b) return a > b end
local t = {}

local function sort_work(until_t)
  while clock.monotonic() < until_t do
    for i = 1, 200 do t[i] = (i * 7919) % 1009 end
    table.sort(t, desc)
  end
end

local doc = { id = 1, name = 'vmstack', tags = { 'a', 'b', 'c' }, n = { 1, 2, 3, 4, 5 } }

local function json_work(until_t)
  while clock.monotonic() < until_t do
    for _ = 1, 20 do json.encode(doc) end
  end
end

local s = 0
local function lua_work(until_t)
  while clock.monotonic() < until_t do
    for i = 1, 2000 do s = s + i % 7 end
  end
end

local stop = clock.monotonic() + secs
local done = fiber.channel(1)
fiber.create(function()
  fiber.name('lua_worker')
  while clock.monotonic() < stop do
    lua_work(clock.monotonic() + 0.010)
    fiber.yield()
  end
  done:put(true)
end)

local jp = arg[3]
if jp then require('jit.p').start('f', jp) end
io.stdout:setvbuf('no')
io.stdout:write('running\n')
while clock.monotonic() < stop do
  sort_work(clock.monotonic() + 0.020)
  json_work(clock.monotonic() + 0.010)
  fiber.yield()
end
done:get()
if jp then require('jit.p').stop() end
print('done', s)
os.exit(0)
