-- C calls Lua through an FFI callback: sort_all (line 13) hands a Lua
-- comparator, cmp (line 7), to libc's qsort. Usage: luajit ffi_callback.lua SECONDS
local ffi = require("ffi")
ffi.cdef [[void qsort(void *base, size_t n, size_t size,
                      int (*cmp)(const void *, const void *));]]

local function cmp(a, b)
  local x, y = ffi.cast("const int *", a)[0], ffi.cast("const int *", b)[0]
  for _ = 1, 20 do x = x + 0 end
  return x < y and -1 or (x > y and 1 or 0)
end
local cb = ffi.cast("int (*)(const void *, const void *)", cmp)
local function sort_all(n)
  local a = ffi.new("int[?]", n)
  for i = 0, n - 1 do a[i] = (i * 7919) % n end
  ffi.C.qsort(a, n, 4, cb)
  return a[0]
end

local t = os.clock()
while os.clock() - t < tonumber(arg[1] or 2) do sort_all(5000) end
