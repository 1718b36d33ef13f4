-- A Tarantool whose only work is a fiber sleeping 20 ms at a time
-- (t_off_cpu.sh): its thread waits in the event loop, where the fiber
-- scheduler blocks; the sleeping fiber's own Lua frames are on its own
-- C stack, not the thread's. Prints "running", then sleeps SECONDS.
-- Usage: tarantool fiber_sleep.lua SECONDS
local fiber = require('fiber')
local seconds = tonumber(arg[1]) or 3

fiber.create(function()
    fiber.name('sleeper')
    while true do
        fiber.sleep(0.02)
    end
end)
print('running')
io.stdout:flush()
fiber.sleep(seconds)
os.exit(0)
