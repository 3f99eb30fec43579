-- lib.lua - the part every ratelab script starts with (the build puts it
-- before the algorithm's own text): exact non-negative integers for Lua 5.1,
-- whose numbers are doubles, and the arguments, clock, state and TTL that
-- all the scripts share.
--
-- Numbers: a value is an array of base-10^7 limbs, least significant first,
-- with no leading zero limb (zero is the empty array). A limb product is
-- below 10^14 < 2^53 and a column sum of a product below 2^53, so every
-- double operation below is exact. Division estimates the quotient from the
-- doubles' leading digits, shrunk by one part in 10^12 so that it never
-- overshoots, subtracts that multiple, and repeats until the remainder is
-- below the divisor: each round gains about 12 decimal digits. Values cross
-- the wire as decimal strings, never as Lua numbers.
--
-- Speed: most values of a request (times of a few seconds' scale aside,
-- counts, costs, windows of ms to hours) have at most two limbs, i.e. are
-- below 10^14 < 2^53. Every operation on such operands computes on the
-- doubles directly, exact because its result stays below 2^53 (a sum or
-- difference below 2 * 10^14; a product checked against 2^53 before it is
-- used; a quotient corrected by its remainder), and only larger operands
-- take the limb loops.
local BASE = 10000000
local EXACT = 9007199254740992 -- 2^53

local function trim(a)
	local n = #a
	while n > 0 and a[n] == 0 do
		a[n] = nil
		n = n - 1
	end
	return a
end

-- An integer-valued double below 2^53.
local function small(x)
	if x < BASE then return x > 0 and { x } or {} end
	local a = {}
	while x > 0 do
		local r = x % BASE
		a[#a + 1] = r
		x = (x - r) / BASE
	end
	return a
end

-- A decimal string of digits only (the client checks them).
local function num(s)
	if #s <= 14 then return small(tonumber(s)) end
	local a, i = {}, #s
	while i >= 1 do
		local j = i - 6
		if j < 1 then j = 1 end
		a[#a + 1] = tonumber(string.sub(s, j, i))
		i = j - 1
	end
	return trim(a)
end

local function str(a)
	if #a <= 2 then return string.format('%.0f', (a[2] or 0) * BASE + (a[1] or 0)) end
	local t = { string.format('%d', a[#a]) }
	for i = #a - 1, 1, -1 do t[#t + 1] = string.format('%07d', a[i]) end
	return table.concat(t)
end

-- The value as a double: exact below 2^53, else the nearest few.
local function tonum(a)
	local v = 0
	for i = #a, 1, -1 do v = v * BASE + a[i] end
	return v
end

local function cmp(a, b)
	if #a ~= #b then return #a < #b and -1 or 1 end
	for i = #a, 1, -1 do
		if a[i] ~= b[i] then return a[i] < b[i] and -1 or 1 end
	end
	return 0
end

-- The value of a of at most two limbs (below 10^14), else nil.
local function two(a)
	if #a > 2 then return nil end
	return (a[2] or 0) * BASE + (a[1] or 0)
end

local function add(a, b)
	local x, y = two(a), two(b)
	if x and y then return small(x + y) end
	local r, c = {}, 0
	for i = 1, math.max(#a, #b) do
		local s = (a[i] or 0) + (b[i] or 0) + c
		if s >= BASE then r[i] = s - BASE; c = 1 else r[i] = s; c = 0 end
	end
	if c > 0 then r[#r + 1] = c end
	return r
end

-- a - b for a >= b; anything else is a bug in the caller, never a wrap.
local function sub(a, b)
	local x, y = two(a), two(b)
	if x and y then
		if x < y then error('ratelab: negative difference') end
		return small(x - y)
	end
	local r, c = {}, 0
	for i = 1, #a do
		local s = a[i] - (b[i] or 0) - c
		if s < 0 then r[i] = s + BASE; c = 1 else r[i] = s; c = 0 end
	end
	if c > 0 or #b > #a then error('ratelab: negative difference') end
	return trim(r)
end

local function mul(a, b)
	if #a == 0 or #b == 0 then return {} end
	local x, y = two(a), two(b)
	if x and y then
		local p = x * y -- rounded only if the product reaches 2^53, and then >= 2^53
		if p < EXACT then return small(p) end
	end
	local r = {}
	for i = 1, #a + #b do r[i] = 0 end
	for i = 1, #a do
		local c, ai = 0, a[i]
		for j = 1, #b do
			local s = r[i + j - 1] + ai * b[j] + c
			c = math.floor(s / BASE)
			r[i + j - 1] = s - c * BASE
		end
		local k = i + #b
		while c > 0 do
			local s = r[k] + c
			c = math.floor(s / BASE)
			r[k] = s - c * BASE
			k = k + 1
		end
	end
	return trim(r)
end

-- a * BASE^k
local function shift(a, k)
	local r = {}
	for i = 1, k do r[i] = 0 end
	for i = 1, #a do r[k + i] = a[i] end
	return r
end

-- floor(a / b) and a mod b, b > 0.
local function divmod(a, b)
	local x, y = two(a), two(b)
	if x and y then
		-- x / y rounded may be one off floor(x / y); the remainder tells
		local q = math.floor(x / y)
		local r = x - q * y
		if r < 0 then q, r = q - 1, r + y elseif r >= y then q, r = q + 1, r - y end
		return small(q), small(r)
	end
	local q, r, bd = {}, a, tonum(b)
	while cmp(r, b) >= 0 do
		local est, k = tonum(r) / bd, 0
		while est >= 1e14 do
			est = est / BASE
			k = k + 1
		end
		local m = math.floor(est * (1 - 1e-12))
		local qe = m >= 1 and shift(small(m), k) or { 1 }
		r = sub(r, mul(qe, b))
		q = add(q, qe)
	end
	return q, r
end

local function ceil_div(a, b)
	local q, r = divmod(a, b)
	if #r > 0 then q = add(q, { 1 }) end
	return q
end

local function max(a, b) return cmp(a, b) >= 0 and a or b end
local function min(a, b) return cmp(a, b) <= 0 and a or b end

local ZERO, ONE = {}, { 1 }
local INT64_MAX = { 4775807, 7203685, 92233 } -- 9223372036854775807
local TIME_MAX = { 0, 0, 40000 }                 -- 4 * 10^18
local MS = { 1000000 }                          -- ns per ms

local function sat(a) return min(a, INT64_MAX) end

-- Arguments: ARGV[1] the time in ns, or '' for Redis's TIME; ARGV[2..4]
-- N, W, B (validated by the client); ARGV[5] the TTL grace, ms; ARGV[6]
-- the request's cost in units, 1..10^9 (the algorithms' scripts).
local now
if ARGV[1] == '' then
	local t = redis.call('TIME')
	now = add(mul(num(t[1]), num('1000000000')), mul(num(t[2]), num('1000')))
else
	now = num(ARGV[1])
end
if cmp(now, TIME_MAX) > 0 then return redis.error_reply('ratelab: time out of range') end
local n, w, b = num(ARGV[2]), num(ARGV[3]), num(ARGV[4])
local grace = tonumber(ARGV[5])
local costn = tonumber(ARGV[6]) or 1
local cost = small(costn)
local key = KEYS[1]

-- The key's fields (nil for a fresh key), after checking that the key holds
-- this algorithm's state.
local function load(alg, fields)
	local v = redis.call('HMGET', key, 'alg', unpack(fields))
	if v[1] and v[1] ~= alg then
		return redis.error_reply('ratelab: key ' .. key .. ' holds ' .. tostring(v[1]) .. ' state, not ' .. alg)
	end
	local st = {}
	for i = 1, #fields do st[fields[i]] = v[i + 1] or false end
	return nil, st
end

-- Stores the state (a flat list field, value, ...) with a TTL of the time
-- back to full quota (reset, ns, saturated, rounded up to ms) plus the grace, or drops
-- the key when that is 0; returns the answer as strings. frozen: nothing
-- is written (a request that can never be admitted changes no state).
local function finish(alg, verdict, remaining, retry, reset, delay, fields, extra_key, frozen)
	-- a cost that can never be admitted leaves the state as it was (cost.md)
	if frozen then return { verdict, str(remaining), str(sat(retry)), str(sat(reset)), str(sat(delay)) } end
	local ttl = tonum(ceil_div(sat(reset), MS)) + grace
	if ttl > 0 then
		redis.call('HSET', key, 'alg', alg, unpack(fields))
		redis.call('PEXPIRE', key, ttl)
		if extra_key and redis.call('EXISTS', extra_key) == 1 then redis.call('PEXPIRE', extra_key, ttl) end
	else
		redis.call('DEL', key)
		if extra_key then redis.call('DEL', extra_key) end
	end
	return { verdict, str(remaining), str(sat(retry)), str(sat(reset)), str(sat(delay)) }
end

local function field(st, name) return st[name] and num(st[name]) or ZERO end

-- The level algorithms' state (level.h, token_bucket and leaky_bucket):
-- clamps now to the last time seen, then returns nil, the level at now
-- (due - N * now, at least 0) and N * now; or the error of load.
local function load_level(alg)
	local err, st = load(alg, { 'last', 'due' })
	if err then return err end
	now = max(now, field(st, 'last'))
	local at, due = mul(n, now), field(st, 'due')
	return nil, cmp(due, at) > 0 and sub(due, at) or ZERO, at
end
