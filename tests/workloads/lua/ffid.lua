-- Print "FFID NAME" for every builtin (fast) function of this LuaJIT, as
-- jit.util.funcinfo() reports it: the reference for the builds' names
-- (user/vm/luajit_builds.c, luajit_dwarf.c).
local fi = require("jit.util").funcinfo
local seen = {}
local function take(name, f)
  local i = type(f) == "function" and fi(f)
  if i and i.ffid and i.ffid > 1 and (not seen[i.ffid] or #name < #seen[i.ffid]) then
    seen[i.ffid] = name
  end
end
local function scan(prefix, t)
  if type(t) ~= "table" then return end
  for k, v in pairs(t) do take(prefix .. k, v) end
end
scan("", _G)
for _, lib in ipairs{"coroutine","math","bit","string","table","io","os","debug","jit",
                     "jit.util","jit.opt","jit.profile","ffi","package","string.buffer"} do
  local ok, t = pcall(require, lib)
  if ok then scan(lib .. ".", t) end
end
-- Builtins that are their own modules (OpenResty's, table.new's).
for _, m in ipairs{"table.new","table.clear","table.clone","table.isarray","table.nkeys",
                   "table.isempty","thread.exdata","thread.exdata2"} do
  local ok, f = pcall(require, m)
  if ok then take(m, f) end
end
-- Iterators and methods reachable only through what functions return.
take("ipairs_aux", (ipairs({})))
take("string.gmatch_aux", string.gmatch("", ""))
take("coroutine.wrap_aux", coroutine.wrap(function() end))
scan("file:", debug.getmetatable(io.stdout).__index)
local ffi = require("ffi")
ffi.cdef("int abs(int);")
scan("cdata.", debug.getmetatable(ffi.new("int[1]")))
scan("clib.", debug.getmetatable(ffi.C))
local ok, cb = pcall(ffi.cast, "void (*)(void)", function() end)
if ok then
  take("callback:free", cb.free)
  take("callback:set", cb.set)
  cb:free()
end
local okb, buffer = pcall(require, "string.buffer")
if okb then
  local mt = debug.getmetatable(buffer.new())
  scan("buffer:", mt.__index)
  for _, k in ipairs{"__gc", "__tostring", "__len"} do take("buffer:" .. k, mt[k]) end
end
local n = {}
for k in pairs(seen) do n[#n+1] = k end
table.sort(n)
for _, k in ipairs(n) do io.write(k, " ", seen[k], "\n") end
