-- sliding_log.lua - algos/src/sliding_log.c in Redis: admit iff fewer than
-- N admitted times x satisfy t - W < x <= t. The admitted times are a list
-- at KEYS[2] of runs "time:count", oldest first (times never decrease:
-- the clock is clamped), the key's hash holds last and total.
local ALG = 'sliding_log'
local err, st = load(ALG, { 'last', 'total' })
if err then return err end
local lkey = KEYS[2]
-- a hash gone (expired, evicted) takes its log with it
if not st['last'] then redis.call('DEL', lkey) end
local last = field(st, 'last')
local total = tonumber(st['total'] or '0')
local limit = tonum(n)

local function run(s)
	local i = string.find(s, ':', 1, true)
	return num(string.sub(s, 1, i - 1)), tonumber(string.sub(s, i + 1))
end

now = max(now, last)
if cmp(now, w) >= 0 then
	local horizon = sub(now, w)
	while total > 0 do
		local at, c = run(redis.call('LINDEX', lkey, 0))
		if cmp(at, horizon) > 0 then break end
		redis.call('LPOP', lkey)
		total = total - c
	end
end
local verdict = total < limit and 1 or 0
if verdict == 1 then
	local tail = total > 0 and redis.call('LINDEX', lkey, -1)
	local at, c
	if tail then at, c = run(tail) end
	if tail and cmp(at, now) == 0 then
		redis.call('LSET', lkey, -1, str(now) .. ':' .. (c + 1))
	else
		redis.call('RPUSH', lkey, str(now) .. ':1')
	end
	total = total + 1
end
local retry, reset = ZERO, ZERO
if verdict == 0 then retry = sub(add(run(redis.call('LINDEX', lkey, 0)), w), now) end
if total > 0 then reset = sub(add(run(redis.call('LINDEX', lkey, -1)), w), now) end
return finish(ALG, verdict, small(limit - total), retry, reset, ZERO,
	{ 'last', str(now), 'total', tostring(total) }, lkey)
