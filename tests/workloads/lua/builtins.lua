-- Work that calls a known set of builtin (fast) functions: string
-- operations, table.sort with a Lua comparator, pcall, select, tonumber,
-- ipairs, pairs (whose next is not called: LuaJIT iterates itself), a
-- coroutine; records (tables) and C arrays (cdata) returned by functions. Runs on any LuaJIT
-- (luajit, tarantool).
--   builtins.lua SECONDS [joff|jon] [discover]
-- With "discover" it runs the work a while with the JIT off under a call
-- hook and prints the ffids of the builtins called, the only builtins a
-- profile of the work may show; else it prints "running" and works for
-- SECONDS.
local secs = tonumber(arg and arg[1] or (arg1 or "")) or 5
local mode = arg and arg[2]
local discover = arg and arg[3] == "discover"
if mode == "joff" then jit.off() end

local fmt, sub, byte, gsub, find = string.format, string.sub, string.byte, string.gsub, string.find
local concat, sort, floor, clock = table.concat, table.sort, math.floor, os.clock

local function by_key(a, b) return a.k < b.k end

-- A record with a closure (never compiled: LuaJIT's traces stop at FNEW).
local function entry(n, i)
  local k = (n * 7919 + i) % 1009
  return { k = k, s = fmt("%05d", n), get = function() return k end }
end

-- A C array (a cdata) returned by a function.
local ffi = require("ffi")
local function cells(n)
  return ffi.new("int32_t[?]", n)
end

local gen = coroutine.wrap(function()
  local i = 0
  while true do
    i = i + 1
    coroutine.yield(i % 17)
  end
end)

local function round(i)
  local t = {}
  for n = 1, 50 do t[n] = entry(n, i) end
  local cs
  for n = 1, 100 do cs = cells(n % 8 + 1) end
  sort(t, by_key)
  local parts = {}
  for n, v in ipairs(t) do parts[n] = v.s end
  local s = concat(parts, ",")
  local ok, v = pcall(tonumber, sub(s, 1, 5))
  local c = select("#", gsub(s, "0", "o"))
  for _, r in pairs(t[1]) do c = c + (type(r) == "number" and 1 or 0) end
  return (ok and v or 0) + byte(s, 3) + (find(s, "o", 1, true) or 0) + c +
         floor(i / 3) + gen() + t[50].get() + cs[0]
end

local function work(until_t)
  local n, i = 0, 0
  repeat
    i = i + 1
    n = n + round(i)
  until clock() >= until_t
  return n
end

if discover then
  local fi = require("jit.util").funcinfo
  local getinfo = debug.getinfo
  local seen, active = {}, false
  jit.off()
  debug.sethook(function()
    if not active then return end
    local f = fi(getinfo(2, "f").func)
    if f.ffid and f.ffid > 1 then seen[f.ffid] = true end
  end, "c")
  active = true
  work(clock() + 0.2)
  active = false
  debug.sethook()
  local ids = {}
  for id in pairs(seen) do ids[#ids + 1] = id end
  table.sort(ids)
  print(table.concat(ids, " "))
  os.exit(0)
end

print("running")
io.stdout:flush()
work(clock() + secs)
