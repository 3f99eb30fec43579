-- sliding_log.lua - algos/src/sliding_log.c in Redis: a request of cost c
-- is admitted iff the units admitted at times x with t - W < x <= t, plus
-- c, are at most N. The admitted units are a list at KEYS[2] of runs
-- "time:units", oldest first (times never decrease:
-- the clock is clamped), the key's hash holds last and total.
-- Fast track: W below 2^51.
local ALG = 'sliding_log'
local err, v = read(ALG, 'last', 'total')
if err then return err end
local lkey = KEYS[2]
-- a hash gone (expired, evicted) takes its log with it
if not v[2] then redis.call('DEL', lkey) end
local total = tonumber(v[3] or '0')
local limit = n
-- a cost above N is never admitted and changes nothing: its expiry is not stored
local frozen = costn > limit

repeat
	if w >= LIMIT then break end
	local clamped = clamp(v[2])
	local now = clamped and v[2] or now_s or dec(nh, nl)

	-- A run's time as a pair and its units.
	local function run(s)
		local i = string.find(s, ':', 1, true)
		local h, l = split(string.sub(s, 1, i - 1))
		return h, l, tonumber(string.sub(s, i + 1))
	end

	-- expired: at <= now - W, i.e. at - now + W <= 0 (at - now is exact or
	-- below -2^53, beyond any W of the fast track)
	local first = 0 -- list index of the oldest live run
	while total > 0 do
		local h, l, c = run(redis.call('LINDEX', lkey, first))
		if (h - nh) * E9 + (l - nl) + w > 0 then break end
		if frozen then first = first + 1 else redis.call('LPOP', lkey) end
		total = total - c
	end
	local verdict, retry, reset = 0, 0, 0
	local tail -- the newest run, when it is known
	if total + costn <= limit then
		verdict = 1
		-- the newest run is at most last, so it is at now only if last is now
		tail = total > 0 and now == v[2] and redis.call('LINDEX', lkey, -1)
		local h, l, c
		if tail then h, l, c = run(tail) end
		if tail and h == nh and l == nl then
			redis.call('LSET', lkey, -1, now .. ':' .. (c + costn))
		else
			redis.call('RPUSH', lkey, now .. ':' .. costn)
		end
		total = total + costn
		tail = now .. ':'
	elseif frozen then
		retry = NEVER
	else
		-- the oldest run whose expiry leaves room for c
		local runs = redis.call('LRANGE', lkey, first, -1)
		local left = total
		for i = 1, #runs do
			local h, l, c = run(runs[i])
			left = left - c
			if left + costn <= limit then
				retry = (h - nh) * E9 + (l - nl) + w
				break
			end
		end
		tail = runs[#runs]
	end
	if total > 0 then
		local h, l = run(tail or redis.call('LINDEX', lkey, -1))
		reset = (h - nh) * E9 + (l - nl) + w
	end
	local remaining = limit - total
	if remaining < 0 then remaining = 0 end
	if frozen then return answer(verdict, remaining, retry, reset, 0) end
	local ttl = store(v[1] and true or ALG, reset, 'last', now, 'total', tostring(total))
	if ttl > 0 then
		redis.call('PEXPIRE', lkey, ttl)
	else
		redis.call('DEL', lkey)
	end
	return answer(verdict, remaining, retry, reset, 0)
until true

local X = wide({ 'last', 'total' }, v, nh, nl, costn)
local add, sub, cmp, num, str, ZERO = X.add, X.sub, X.cmp, X.num, X.str, X.ZERO
local w = X.w
local last = X.field('last')

local function run(s)
	local i = string.find(s, ':', 1, true)
	return num(string.sub(s, 1, i - 1)), tonumber(string.sub(s, i + 1))
end

local now = X.max(X.now, last)
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
	retry = X.INT64_MAX
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
return X.finish(ALG, verdict, X.small(limit - total), retry, reset, ZERO,
	{ 'last', str(now), 'total', tostring(total) }, lkey, frozen)
