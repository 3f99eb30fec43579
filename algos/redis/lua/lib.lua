-- lib.lua - the part every ratelab script starts with (the build puts it
-- before the algorithm's own text): the arguments, clock, state and TTL that
-- all the scripts share, and exact integer arithmetic for Lua 5.1, whose
-- numbers are doubles, on two tracks.
--
-- The fast track computes on Lua numbers, exact because every value it
-- keeps is an integer below 2^52 (a sum of two such is below 2^53, where
-- doubles stop being exact; a product or quotient is checked, or corrected
-- by its remainder). Times and the level scripts' "due" (N * time) are
-- above that, so they are kept as pairs (hi, lo) = (value div 10^9, value
-- mod 10^9): every hi of a value up to 9 * 10^24 is below 2^53, a
-- difference of two pairs is exact whenever it is below 2^53 (and of the
-- right sign when not), which is all the rules need of times: the gaps
-- between now and the stored instants. No table is made per value.
--
-- The wide track, wide(), is for the rules and states the fast track cannot
-- hold (a product of the rule above 2^51, a gap of a month or more): each
-- algorithm's script runs its fast track in a block it leaves (break) at
-- the first value out of bounds, before writing anything, for its wide
-- track, the same model in limbs (below); the state is the same strings
-- either way. Every function is made before the arguments' locals, and
-- none per value: making a closure costs, more so with many upvalues, and
-- Redis makes every one of them again on every call. So the library's
-- functions are called by their full names (math.floor), not through
-- local aliases, each of which would be one more upvalue. Numbers become
-- strings with '%d', exact for every integer below 2^63 and cheaper than
-- '%.0f', which formats a double.
local E9, LIMIT = 1000000000, 2251799813685248 -- ns per s; 2^51, the fast track's bound
local NEVER = -1                                -- an answer of INT64_MAX ns

-- A decimal string of digits (or false: 0) as (value div 10^9, value mod
-- 10^9) and its double; hi is exact below 2^53 (a longer string gives hi >= 2^53). Below
-- 10^21 the string's double is within 2^16 of the value, so hi is its
-- rounded quotient; above, the leading digits are read on their own.
local function split(s)
	if not s then return 0, 0 end
	local x = s + 0
	if x < E9 then return 0, x, x end
	local l = string.sub(s, -9) + 0
	if x < 1e21 then return math.floor((x - l) / E9 + 0.5), l, x end
	return string.sub(s, 1, -10) + 0, l, x
end

local function dec(h, l)
	if h == 0 then return string.format('%d', l) end
	return string.format('%d%09d', h, l)
end

-- math.floor(x / y) and x mod y for integers 0 <= x < 2^52, 0 < y < 2^52: the
-- rounded quotient is at most one off, and the remainder tells.
local function fdiv(x, y)
	local q = math.floor(x / y)
	local r = x - q * y
	if r < 0 then return q - 1, r + y elseif r >= y then return q + 1, r - y end
	return q, r
end

local function fceil(x, y)
	local q, r = fdiv(x, y)
	if r > 0 then return q + 1 end
	return q
end

-- The pair (h, x) with lo x (|x| < 2^53 - 10^9) carried into [0, 10^9).
local function norm(h, x)
	local q = math.floor(x / E9)
	local r = x - q * E9
	if r < 0 then q, r = q - 1, r + E9 elseif r >= E9 then q, r = q + 1, r - E9 end
	return h + q, r
end

-- The time (h, l) mod w, 0 < w < 9 * 10^12 (else nil): h mod w, then
-- 10^9 as one digit (w <= 9007199) or three of 10^3, so that every partial
-- remainder times the digit's base stays below 2^53 (fmod is exact).
local function tmod(h, l, w)
	local r = math.fmod(h, w)
	if w <= 9007199 then return math.fmod(r * E9 + l, w) end
	if w >= 9000000000000 then return nil end
	local d1, m = fdiv(l, 1000000)
	local d2, d3 = fdiv(m, 1000)
	r = math.fmod(r * 1000 + d1, w)
	r = math.fmod(r * 1000 + d2, w)
	return math.fmod(r * 1000 + d3, w)
end

-- The key's fields, read once (v[1] the algorithm, v[i + 1] field i's
-- string or false), after checking that the key holds this algorithm's state.
local function read(alg, ...)
	local key = KEYS[1]
	local v = redis.call('HMGET', key, 'alg', ...)
	if v[1] and v[1] ~= alg then
		return redis.error_reply('ratelab: key ' .. key .. ' holds ' .. tostring(v[1]) .. ' state, not ' .. alg)
	end
	return nil, v
end

-- The answer of the fast track: numbers below 2^52, NEVER for INT64_MAX.
local function answer(verdict, remaining, retry, reset, delay)
	return { verdict, remaining == 0 and '0' or string.format('%d', remaining),
		retry == 0 and '0' or retry == NEVER and '9223372036854775807' or string.format('%d', retry),
		reset == 0 and '0' or string.format('%d', reset), delay == 0 and '0' or string.format('%d', delay) }
end

-- Stores the state (field, value, ...) with a TTL of the time back to full
-- quota (reset, ns, rounded up to ms) plus the grace, or drops the key when
-- that is 0; returns the TTL (ms). alg: the algorithm's name, or true when
-- the key holds its state already (its alg field is not written again).
local function store(alg, reset, ...)
	local key, ttl = KEYS[1], fceil(reset, 1000000) + ARGV[5]
	if ttl > 0 and alg == true then
		redis.call('HSET', key, ...)
		redis.call('PEXPIRE', key, ttl)
	elseif ttl > 0 then
		redis.call('HSET', key, 'alg', alg, ...)
		redis.call('PEXPIRE', key, ttl)
	else
		redis.call('DEL', key)
	end
	return ttl
end

-- The wide track: the limb arithmetic, the arguments as limbs (now: the
-- pair (nh, nl)), and the state and answer in them, for v read by
-- read(alg, fields...).
local function wide(fields, v, nh, nl, costn)
	local key, grace = KEYS[1], ARGV[5] + 0
	-- Numbers: a value is an array of base-10^7 limbs, least significant first,
	-- with no leading zero limb (zero is the empty array). A limb product is
	-- below 10^14 < 2^53 and a column sum of a product below 2^53, so every
	-- double operation below is exact. Division estimates the quotient from the
	-- doubles' leading digits, shrunk by one part in 10^12 so that it never
	-- overshoots, subtracts that multiple, and repeats until the remainder is
	-- below the divisor: each round gains about 12 decimal digits. Values cross
	-- the wire as decimal strings, never as Lua numbers. Operands of at most
	-- two limbs (below 10^14) compute on the doubles directly, exact because
	-- the result stays below 2^53 (a sum or difference below 2 * 10^14; a
	-- product checked against 2^53 before it is used; a quotient corrected by
	-- its remainder).
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
		if #a <= 2 then return string.format('%d', (a[2] or 0) * BASE + (a[1] or 0)) end
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

	-- math.floor(a / b) and a mod b, b > 0.
	local function divmod(a, b)
		local x, y = two(a), two(b)
		if x and y then
			-- x / y rounded may be one off math.floor(x / y); the remainder tells
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
	local MS = { 1000000 }                          -- ns per ms

	local function sat(a) return min(a, INT64_MAX) end

	local st = {}
	for i = 1, #fields do st[fields[i]] = v[i + 1] or false end
	local function field(name) return st[name] and num(st[name]) or ZERO end
	local now = num(dec(nh, nl))
	local cost = small(costn)

	-- Stores the state (a flat list field, value, ...) as store() does, the
	-- list extra_key's TTL with it; returns the answer as strings. frozen:
	-- nothing is written (a request that can never be admitted changes no
	-- state).
	local function finish(alg, verdict, remaining, retry, reset, delay, flds, extra_key, frozen)
		-- a cost that can never be admitted leaves the state as it was (cost.md)
		if frozen then return { verdict, str(remaining), str(sat(retry)), str(sat(reset)), str(sat(delay)) } end
		local ttl = tonum(ceil_div(sat(reset), MS)) + grace
		if ttl > 0 then
			redis.call('HSET', key, 'alg', alg, unpack(flds))
			redis.call('PEXPIRE', key, ttl)
			if extra_key and redis.call('EXISTS', extra_key) == 1 then redis.call('PEXPIRE', extra_key, ttl) end
		else
			redis.call('DEL', key)
			if extra_key then redis.call('DEL', extra_key) end
		end
		return { verdict, str(remaining), str(sat(retry)), str(sat(reset)), str(sat(delay)) }
	end

	-- The level algorithms' state (level.h, token_bucket and leaky_bucket):
	-- clamps now to the last time seen, then returns the level at now
	-- (due - N * now, at least 0), N * now and now.
	local function load_level()
		local t = max(now, field('last'))
		local at, due = mul(num(ARGV[2]), t), field('due')
		return cmp(due, at) > 0 and sub(due, at) or ZERO, at, t
	end

	return { small = small, num = num, str = str, tonum = tonum, cmp = cmp, add = add, sub = sub, mul = mul,
		divmod = divmod, ceil_div = ceil_div, max = max, min = min, ZERO = ZERO, ONE = ONE,
		INT64_MAX = INT64_MAX, st = st, field = field, finish = finish, load_level = load_level,
		sat = sat, now = now,
		n = num(ARGV[2]), w = num(ARGV[3]), b = num(ARGV[4]), cost = cost }
end

-- Arguments: ARGV[1] the time in ns, or '' for Redis's TIME; ARGV[2..4]
-- N, W, B (validated by the client; W as a Lua number is exact below
-- 2^53, which is all the fast track uses; B read by the scripts that use
-- it); ARGV[5] the TTL grace, ms (read by store()); ARGV[6] the request's
-- cost in units, 1..10^9 (the algorithms' scripts).
local A = ARGV
local nh, nl, nx -- now: (div 10^9, mod 10^9) and its double
if A[1] == '' then
	local t = redis.call('TIME')
	nh, nl = t[1] + 0, t[2] * 1000
	nx = nh * E9 + nl
else
	nh, nl, nx = split(A[1])
end
if nh > 4000000000 or (nh == 4000000000 and nl > 0) then return redis.error_reply('ratelab: time out of range') end
local n, w = A[2] + 0, A[3] + 0
local costn = tonumber(A[6]) or 1

-- The decimal string of now when the argument is one, canonical (no
-- leading zero, as the client sends it), else nil (dec() makes it).
local now_s = A[1]
if now_s == '' or (#now_s > 1 and string.byte(now_s) == 48) then now_s = nil end

-- Clamps now to s, the stored last-seen time (or false): true when s is
-- later. The doubles of two times up to 4 * 10^18 are each within 256 of
-- the time, so one 1024 below now's is earlier without reading it exactly.
local function clamp(s)
	if not s or s + 0 < nx - 1024 then return false end
	local h, l = split(s)
	if h > nh or (h == nh and l > nl) then
		nh, nl = h, l
		return true
	end
	return false
end
