-- plain_gcra.lua - the reference inexact limiter the report measures the
-- exact scripts against: GCRA as most published Redis limiters write it,
-- in Lua numbers (doubles), the theoretical arrival time (TAT) in one
-- string key read with one GET and written with one SET PX. Same
-- arguments as ratelab's scripts: KEYS[1]; ARGV[1] now (ns), ARGV[2..4]
-- N, W (ns), B, ARGV[5] the TTL grace (ms), ARGV[6] the cost. Answers
-- {allowed, remaining, retry_after_ns, reset_ns, 0}, the shape of
-- ratelab's answers. Times above 2^53 ns and products of wide rules are
-- rounded: this script is the speed ceiling of an inexact script, not a
-- limiter the project ships.
local now = tonumber(ARGV[1])
local t = math.ceil(tonumber(ARGV[3]) / tonumber(ARGV[2]))
local tau = (tonumber(ARGV[4]) - 1) * t
local cost = tonumber(ARGV[6])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local debt = tat - now + (cost - 1) * t
if debt > tau then
	return { 0, 0, math.ceil(debt - tau), math.ceil(tat - now), 0 }
end
tat = tat + cost * t
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1e6) + tonumber(ARGV[5]))
return { 1, math.floor((tau - (tat - now)) / t) + 1, 0, tat - now, 0 }
