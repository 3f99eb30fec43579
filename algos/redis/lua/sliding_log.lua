-- sliding_log.lua - algos/src/sliding_log.c in Redis: a request of cost c
-- is admitted iff the units admitted at times x with t - W < x <= t, plus
-- c, are at most N. The admitted units are a list at KEYS[2] of runs
-- "time:units", oldest first (times never decrease:
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
-- a cost above N is never admitted and changes nothing: its expiry is not stored
local frozen = costn > limit
local first = 0 -- list index of the oldest live run
if cmp(now, w) >= 0 then
	local horizon = sub(now, w)
	while total > 0 do
		local at, c = run(redis.call('LINDEX', lkey, first))
		if cmp(at, horizon) > 0 then break end
		if frozen then first = first + 1 else redis.call('LPOP', lkey) end
		total = total - c
	end
end
local verdict = total + costn <= limit and 1 or 0
if verdict == 1 then
	local tail = total > 0 and redis.call('LINDEX', lkey, -1)
	local at, c
	if tail then at, c = run(tail) end
	if tail and cmp(at, now) == 0 then
		redis.call('LSET', lkey, -1, str(now) .. ':' .. (c + costn))
	else
		redis.call('RPUSH', lkey, str(now) .. ':' .. costn)
	end
	total = total + costn
end
local retry, reset = ZERO, ZERO
if verdict == 0 and costn > limit then
	retry = INT64_MAX
elseif verdict == 0 then
	-- the oldest run whose expiry leaves room for c
	local left = total
	for _, s in ipairs(redis.call('LRANGE', lkey, first, -1)) do
		local at, c = run(s)
		left = left - c
		if left + costn <= limit then
			retry = sub(add(at, w), now)
			break
		end
	end
end
if total > 0 then reset = sub(add(run(redis.call('LINDEX', lkey, -1)), w), now) end
return finish(ALG, verdict, small(limit - total), retry, reset, ZERO,
	{ 'last', str(now), 'total', tostring(total) }, lkey, frozen)
