-- breaker.lua - algos/src/breaker.c in Redis: ARGV[2..4] are limit, window
-- and open time (the caller's unit, like the times), ARGV[6] 'handle' or
-- 'state'. CLOSED counts the admitted times in (now - window, now] (runs
-- "time:count" in the list at KEYS[2]) and opens on the request that would
-- exceed limit; OPEN rejects until open time has passed, then HALF_OPEN
-- admits one probe and closes with a window holding only it. Answers
-- {rc, state before}: rc 1 admitted, 0 rejected or (state) done, -4 a time
-- before the last one (RL_EORDER). The keys live for the grace (ms; 0:
-- no expiry), since the breaker's unit of time is the caller's. It runs on
-- the wide track: its times are the caller's, of any unit.
local CLOSED, OPEN, HALF_OPEN = 0, 1, 2
local fields = { 'last', 'state', 'opened', 'total' }
local err, v = read('breaker', unpack(fields))
if err then return err end
local X = wide(fields, v, nh, nl, costn)
local num, str, cmp, sub, now, st = X.num, X.str, X.cmp, X.sub, X.now, X.st
local key, lkey, grace = KEYS[1], KEYS[2], ARGV[5] + 0
if not st['last'] then redis.call('DEL', lkey) end
local last, opened = X.field('last'), X.field('opened')
local state, total = tonumber(st['state'] or '0'), tonumber(st['total'] or '0')
local limit, window, open_for = X.tonum(X.n), X.w, X.b

local function run(s)
	local i = string.find(s, ':', 1, true)
	return num(string.sub(s, 1, i - 1)), tonumber(string.sub(s, i + 1))
end

local function push()
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

if cmp(now, last) < 0 then return { -4, state } end
if state == OPEN and cmp(sub(now, opened), open_for) >= 0 then state = HALF_OPEN end
local before, rc = state, 0
if ARGV[6] == 'handle' then
	if state == HALF_OPEN then
		push()
		state, rc = CLOSED, 1
	elseif state == CLOSED then
		if cmp(now, window) >= 0 then
			local horizon = sub(now, window)
			while total > 0 do
				local at, c = run(redis.call('LINDEX', lkey, 0))
				if cmp(at, horizon) > 0 then break end
				redis.call('LPOP', lkey)
				total = total - c
			end
		end
		if total < limit then
			push()
			rc = 1
		else
			state, opened, total = OPEN, now, 0
			redis.call('DEL', lkey)
		end
	end
end
redis.call('HSET', key, 'alg', 'breaker', 'last', str(now), 'state', tostring(state),
	'opened', str(opened), 'total', tostring(total))
for _, k in ipairs({ key, lkey }) do
	if grace > 0 then redis.call('PEXPIRE', k, grace) else redis.call('PERSIST', k) end
end
return { rc, before }
