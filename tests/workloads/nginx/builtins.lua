-- An nginx content handler of the kind users write: resty.core's base64
-- and sha1, PCRE regexes through ngx.re, table.sort with a Lua comparator,
-- string operations, records made by a function (a table with a closure:
-- never compiled) and buffers (cdata) returned by one, for WORK_MS of CPU
-- per request (work()).
-- discover() runs the same work once with the JIT off under a call hook
-- and answers (on its last line) the ffids of the builtin (fast)
-- functions it called: the only builtins a profile of work() may show.
local M = {}
local ffi = require("ffi")

local encode_base64, decode_base64 = ngx.encode_base64, ngx.decode_base64
local sha1_bin = ngx.sha1_bin
local re_match, re_gsub, re_find = ngx.re.match, ngx.re.gsub, ngx.re.find
local concat, sort = table.concat, table.sort
local byte, sub, format, lower = string.byte, string.sub, string.format, string.lower
local clock = os.clock
local WORK_MS = 20

local function by_len(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end

local function entry(n, word)
  return { n = n, word = word, get = function() return word end }
end

local function buffer(len)
  return ffi.new("uint8_t[?]", len)
end

local function round(i)
  local words, recs = {}, {}
  for n = 1, 40 do words[n] = format("w%d-%d", (n * 7919 + i) % 1000, n) end
  sort(words, by_len)
  -- Many returns of tables and cdata from interpreted Lua.
  for n = 1, 200 do
    recs[n % 40 + 1] = entry(n, words[n % 40 + 1])
    recs[0] = buffer(n % 16 + 1)
  end
  local s = concat(words, " ")
  local buf = buffer(#s)
  ffi.copy(buf, s, #s)
  local b = encode_base64(s)
  local h = sha1_bin(decode_base64(b))
  local m = re_match(s, [[w(\d+)-(\d+)]], "jo")
  local g = re_gsub(s, "w", "W", "jo")
  local from = re_find(g, "W5", "jo") or 0
  return byte(h, 1) + #m[1] + from + #lower(sub(g, 1, 12)) + buf[3] + #recs[i % 40 + 1].get() +
         recs[0][0]
end

local function work(ms)
  local n, i = 0, 0
  local until_t = clock() + ms / 1000
  repeat
    i = i + 1
    n = n + round(i)
  until clock() >= until_t
  return n
end

function M.work()
  ngx.say(work(WORK_MS))
end

function M.discover()
  local fi = require("jit.util").funcinfo
  local getinfo = debug.getinfo
  local seen, active = {}, false
  local jit_was_on = jit.status()
  jit.off()
  debug.sethook(function()
    if not active then return end
    local i = fi(getinfo(2, "f").func)
    if i.ffid and i.ffid > 1 then seen[i.ffid] = true end
  end, "c")
  active = true
  ngx.say(work(200))
  active = false
  debug.sethook()
  if jit_was_on then jit.on() end
  local ids = {}
  for id in pairs(seen) do ids[#ids + 1] = id end
  table.sort(ids)
  ngx.say(table.concat(ids, " "))
end

return M
