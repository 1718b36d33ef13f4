-- Allocation-heavy Lua for LuaJIT with its JIT on (Debian's luajit and
-- Tarantool): the traces of fill allocate tables and strings, so the
-- garbage collector's steps, which compiled code calls (lj_gc_step_jit),
-- take a large share of the time, and churn's branch taken one round in
-- eight makes its trace exit often (lj_trace_exit). Every sample is under
-- main's loop, in fill or churn.
-- Usage: gc_heavy.lua SECONDS
local function fill(n)
	local t = {}
	for i = 1, n do
		t[i] = { i, "k" .. i }
	end
	return t
end

local function churn(rounds)
	local s = 0
	for r = 1, rounds do
		local t = fill(64)
		if r % 8 == 0 then
			s = s + #t[1][2]
		else
			s = s + #t
		end
	end
	return s
end

local secs = tonumber(arg and arg[1]) or 3
local t0 = os.clock()
local s = 0
print("running")
io.stdout:flush()
while os.clock() - t0 < secs do
	s = s + churn(50)
end
print(s > 0 and "done" or "?")
