-- Print "FFID NAME" for every builtin (fast) function of this LuaJIT, as
-- jit.util.funcinfo() reports it: the reference for vm_luajit.c's names.
local fi = require("jit.util").funcinfo
local seen = {}
local function scan(prefix, t)
  for k, v in pairs(t) do
    if type(v) == "function" then
      local i = fi(v)
      if i.ffid and i.ffid > 1 and (not seen[i.ffid] or #(prefix..k) < #seen[i.ffid]) then seen[i.ffid] = prefix .. k end
    end
  end
end
scan("", _G)
for _, lib in ipairs{"coroutine","math","bit","string","table","io","os","debug","jit","jit.util","jit.opt","ffi","package","string.buffer"} do
  local ok, t = pcall(require, lib)
  if ok and type(t) == "table" then scan(lib .. ".", t) end
end
-- Methods and metamethods reachable only through metatables.
scan("file:", debug.getmetatable(io.stdout).__index)
local ffi = require("ffi")
ffi.cdef("int abs(int);")
scan("cdata.", debug.getmetatable(ffi.new("int[1]")))
scan("clib.", debug.getmetatable(ffi.C))
local n = {}
for k in pairs(seen) do n[#n+1] = k end
table.sort(n)
for _, k in ipairs(n) do io.write(k, " ", seen[k], "\n") end
