-- lib.lua - the part every ratelab script starts with (the build puts it
-- before the algorithm's own text): the arguments, clock, state and TTL that
-- all the scripts share, and exact integer arithmetic for Lua 5.1, whose
-- numbers are doubles, on two tracks.
--
-- The fast track computes on Lua numbers, exact because every value it
-- keeps is an integer below 2^52 (a sum of two such is below 2^53, where
-- doubles stop being exact; a product or quotient is checked, or corrected
-- by its remainder). Times are above that, so they are kept as pairs
-- (hi, lo) = (value div 10^9, value mod 10^9): every hi of a value up to
-- 9 * 10^24 is below 2^53, a difference of two pairs is exact whenever it
-- is below 2^53 (and of the right sign when not), which is all the rules
-- need of times: the gaps between now and the stored instants. The stored
-- form's 64-bit fields are read and written as two u32 words, converted
-- to and from pairs exactly (pair(), words()). No table is made per value.
--
-- The wide track, wide(), is for the rules and states the fast track cannot
-- hold (a product of the rule above 2^51, a gap of a month or more): each
-- algorithm's script runs its fast track in a block it leaves (break) at
-- the first value out of bounds, before writing anything, for its wide
-- track, the same model in limbs (below); the stored bytes are the same
-- either way. A state written under another rule is converted in limbs
-- (state()), then decided on either track. Every function is made before the arguments' locals, and
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

-- The time (h, l) mod w, 0 < w < 9 * 10^12 (else nil): l mod w when w
-- divides 10^9, (h mod w / 10^9) * 10^9 + l when 10^9 divides w, else
-- h mod w, then 10^9 as one digit (w <= 9007199) or three of 10^3, so
-- that every partial remainder times the digit's base stays below 2^53
-- (fmod is exact).
local function tmod(h, l, w)
	if w >= 9000000000000 then return nil end
	local r = math.fmod(E9, w)
	if r == 0 then return math.fmod(l, w) end
	if math.fmod(w, E9) == 0 then return math.fmod(h, w / E9) * E9 + l end
	r = math.fmod(h, w)
	if w <= 9007199 then return math.fmod(r * E9 + l, w) end
	local d1, m = fdiv(l, 1000000)
	local d2, d3 = fdiv(m, 1000)
	r = math.fmod(r * 1000 + d1, w)
	r = math.fmod(r * 1000 + d2, w)
	return math.fmod(r * 1000 + d3, w)
end

-- 64-bit values of the stored form as two u32 words (lo, hi): as a pair
-- (value div 10^9, value mod 10^9), and back. hi * 2^32 = hi * 4 * 10^9 +
-- hi * 294967296, and with hi = a * 2^16 + b, hi * 294967296 = a * 19330 *
-- 10^9 + a * 976710656 + b * 294967296: every term below 2^53.
local TWO32 = 4294967296
local function pair(lo, hi)
	if hi == 0 then
		if lo < E9 then return 0, lo end
		local q = math.floor(lo / E9)
		return q, lo - q * E9
	end
	local a = math.floor(hi / 65536)
	return norm(hi * 4 + a * 19330, (hi - a * 65536) * 294967296 + a * 976710656 + lo)
end

-- The pair (h, l) of a value below 4.6 * 10^18 (h * 1953125 below 2^53:
-- every time, W) as u32 words (lo, hi): with 10^9 = 1953125 * 512, the
-- value is m * 512 + l mod 512, m = h * 1953125 + l div 512.
local function words(h, l)
	local q = math.floor(l / 512)
	local m = h * 1953125 + q
	local hi = math.floor(m / 8388608)
	return (m - hi * 8388608) * 512 + (l - q * 512), hi
end

-- A time's words in [0, RL_TIME_MAX_NS = 4 * 10^18 = 931322574 * 2^32 + 2643460096].
local function time_ok(lo, hi)
	return hi < 931322574 or (hi == 931322574 and lo <= 2643460096)
end

-- The error naming the key, quoted (control bytes and '\' escaped as \n,
-- \t, \r, \xNN, \\): head, the key, tail; by default that the key holds
-- a damaged state of alg.
local function damaged(alg, head, tail)
	local esc = { ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r', ['\\'] = '\\\\', ['\127'] = '\\x7f' }
	for c = 0, 31 do esc[string.char(c)] = esc[string.char(c)] or string.format('\\x%02x', c) end
	return redis.error_reply((head or 'ratelab: key ') .. "'" .. (string.gsub(KEYS[1], '[%c\\]', esc)) .. "'" ..
		(tail or ' holds a damaged ' .. alg .. ' state'))
end

-- Stores value with a TTL of ttl ms, or drops the key when that is not
-- positive.
local function save(value, ttl)
	if ttl > 0 then
		redis.call('SET', KEYS[1], value, 'PX', ttl)
	else
		redis.call('DEL', KEYS[1])
	end
end

-- The answer of the fast track: numbers below 2^52, NEVER for INT64_MAX.
local function answer(verdict, remaining, retry, reset, delay)
	return { verdict, remaining == 0 and '0' or string.format('%d', remaining),
		retry == 0 and '0' or retry == NEVER and '9223372036854775807' or string.format('%d', retry),
		reset == 0 and '0' or string.format('%d', reset), delay == 0 and '0' or string.format('%d', delay) }
end

-- The wide track: the limb arithmetic, the arguments as limbs (now: the
-- pair (nh, nl)), and the stored words and the answer in them.
local function wide(nh, nl, costn)
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

	local now = num(dec(nh, nl))
	local cost = small(costn)
	local W32 = { 4967296, 429 } -- 2^32
	local W64 = mul(W32, W32)
	local TMAX = { 0, 0, 40000 } -- RL_TIME_MAX_NS = 4 * 10^18

	-- u32 words (lo, hi) as a value, and a value below 2^64 as its words.
	local function of_words(lo, hi) return add(mul(small(hi), W32), small(lo)) end
	local function words_of(a)
		local q, r = divmod(a, W32)
		return tonum(r), tonum(q)
	end
	-- The value read at byte pos of s: 8 bytes, or 12 (a level: 8 + 4 high).
	local function at(s, pos)
		local lo, hi = struct.unpack('<I4I4', s, pos)
		return of_words(lo, hi)
	end
	local function level_at(s, pos)
		local lo, hi, top = struct.unpack('<I4I4I4', s, pos)
		return add(of_words(lo, hi), mul(small(top), W64))
	end
	-- 8 bytes of a (below 2^64), or 12 (below 2^96: a level and its 4 high bytes)
	local function put(a)
		return struct.pack('<I4I4', words_of(a))
	end
	local function put_level(a)
		local q, r = divmod(a, W64)
		local lo, hi = words_of(r)
		return struct.pack('<I4I4I4', lo, hi, tonum(q))
	end
	local function time_ok(a) return cmp(a, TMAX) <= 0 end

	-- The answer as strings; stores value (the key's new string) as save()
	-- does with the TTL back to full quota in reset, unless frozen (a request
	-- that can never be admitted changes no state, cost.md).
	local function finish(verdict, remaining, retry, reset, delay, value, frozen)
		if not frozen then
			local ttl = tonum(ceil_div(sat(reset), MS)) + grace
			if ttl > 0 then
				redis.call('SET', key, value, 'PX', ttl)
			else
				redis.call('DEL', key)
			end
		end
		return { verdict, str(remaining), str(sat(retry)), str(sat(reset)), str(sat(delay)) }
	end

	-- The level algorithms' state (level.h: token_bucket, leaky_bucket) at
	-- byte pos of s (false: a fresh key): the level drained to now (clamped
	-- to the last seen time), and now; nil for a time out of range or a
	-- level above a settle's debt cap under the rule (n, w, b): 2 * B * W,
	-- (2 * B + 1) * W when deep (leaky_bucket: the one in service too).
	local function load_level(s, pos, n, w, b, deep)
		if not s then return ZERO, now end
		local last, level = at(s, pos), level_at(s, pos + 8)
		local cap = mul(add(b, b), w)
		if deep then cap = add(cap, w) end
		if not time_ok(last) or cmp(level, cap) > 0 then return nil end
		local t = max(now, last)
		local drained = mul(sub(t, last), n)
		return cmp(level, drained) > 0 and sub(level, drained) or ZERO, t
	end


	-- A rule change on a live key (docs/redis.md, "A rule change"): the
	-- state, checked under the old rule (n0, w0, b0), carried to this call's
	-- rule at now (clamped to the last seen time); the new body, or nil.
	local HORIZON = { 4775807, 7203685, 52233 } -- RL_GCRA_HORIZON_NS = 5223372036854775807
	local function aligned(e, w) -- a window's end: a positive multiple of w
		local _, r = divmod(e, w)
		return #e > 0 and #r == 0
	end
	local function window_ok(last, e, w) -- e in (last, last + w], a multiple of w
		return time_ok(last) and cmp(e, last) > 0 and cmp(sub(e, last), w) <= 0 and aligned(e, w)
	end
	local function next_end(t, w) -- the end of the window of w holding t
		local _, r = divmod(t, w)
		return add(sub(t, r), w)
	end
	local W1, N1, B1 = num(ARGV[3]), num(ARGV[2]), num(ARGV[4])

	-- token_bucket, leaky_bucket (deep): L1 = min(ceil(L0 * W1 / W0), B1 * W1).
	local function convert_level(s, n0, w0, b0, deep)
		local l0, t = load_level(s, 29, n0, w0, b0, deep)
		if not l0 then return nil end
		local q, r = divmod(l0, w0)
		local l1 = min(add(mul(q, W1), ceil_div(mul(r, W1), w0)), mul(B1, W1))
		return put(t) .. put_level(l1) .. '\0\0\0\0'
	end

	-- gcra in 1/n ns (gcra.h: T = W / N exactly, so T is w in these
	-- units): its tolerance min((b - 1) * w, horizon * n - w) under (n, w, b)
	local function gcra_of(n, w, b)
		return min(mul(sub(b, ONE), w), sub(mul(HORIZON, n), w))
	end

	-- gcra's debt cap in 1/n ns, a settle's deepest: min(2 * (tau + T), horizon) * n
	local function gcra_cap(tol, w, n) return min(mul({ 2 }, add(tol, w)), mul(HORIZON, n)) end

	-- gcra's stored {tat_ns, last_ns, tat_frac} at byte 29 of s under (n, w, b):
	-- tat, last and the debt at max(now, last) in 1/n ns, and that time; nil
	-- for a state no check or settle leaves (a time out of range, tat_frac
	-- >= n, TAT past last by more than the debt cap)
	local function gcra_load(s, n, w, b)
		local tat, last, frac = at(s, 29), at(s, 37), at(s, 45)
		if not time_ok(last) or cmp(tat, INT64_MAX) > 0 or cmp(frac, n) >= 0 then return nil end
		if cmp(tat, last) >= 0 and cmp(add(mul(sub(tat, last), n), frac), gcra_cap(gcra_of(n, w, b), w, n)) > 0 then
			return nil
		end
		local t = max(now, last)
		return cmp(tat, t) >= 0 and add(mul(sub(tat, t), n), frac) or ZERO, t
	end

	-- The body for a debt of d (1/n ns) at t: {t + d div n, t, d mod n}.
	local function gcra_put(t, d, n)
		local q, r = divmod(d, n)
		return put(add(t, q)) .. put(t) .. put(r)
	end

	-- A v2 or v3 gcra body {tat_ns, last_ns} (16 bytes, T = ceil(W / N)) under
	-- (n, w, b) as v4's (the module's state_bytes.h): damaged past v3's debt
	-- cap min(2 * b * ceil(w / n), horizon) ns; the fraction 0 and the debt
	-- cut to the exact cap min(2 * b * w, horizon * n) in 1/n ns.
	local function gcra_v3(s, n, w, b)
		local tat, last = at(s, 29), at(s, 37)
		local frac = ZERO
		if time_ok(last) and cmp(tat, last) > 0 and cmp(tat, INT64_MAX) <= 0 then
			local debt = sub(tat, last)
			if cmp(debt, min(mul(add(b, b), ceil_div(w, n)), HORIZON)) > 0 then return nil end
			local cap = min(mul(add(b, b), w), mul(HORIZON, n))
			if cmp(mul(debt, n), cap) > 0 then
				local q, r = divmod(cap, n)
				tat, frac = add(last, q), r
			end
		end
		return put(tat) .. put(last) .. put(frac)
	end

	-- gcra, in 1/N ns: D0 = debt0 * N0, D1 = min(q * W1 + ceil(r * W1 / W0),
	-- tau1 * N1 + W1), q = D0 div W0, r = D0 mod W0 (gcra.h).
	local function convert_gcra(s, n0, w0, b0)
		local d0, t = gcra_load(s, n0, w0, b0)
		if not d0 then return nil end
		local q, r = divmod(d0, w0)
		local d1 = min(add(mul(q, W1), ceil_div(mul(r, W1), w0)), add(gcra_of(N1, W1, B1), W1))
		return gcra_put(t, d1, N1)
	end

	-- fixed_window: the count of the window holding now, at most N1, in
	-- W1's window holding now; nothing once that window is over.
	local function convert_fixed(s, n0, w0, b0)
		local last, e, count = at(s, 29), at(s, 37), struct.unpack('<I4', s, 45)
		if not window_ok(last, e, w0) or count > tonum(n0) then return nil end
		local t = max(now, last)
		if cmp(t, e) >= 0 then
			count = 0
			e = next_end(t, W1)
		else
			count = math.min(count, tonum(N1))
			if cmp(W1, w0) ~= 0 then e = next_end(t, W1) end
		end
		return put(t) .. put(e) .. struct.pack('<I4I4', count, 0)
	end

	-- sliding_counter: W1 == W0, prev and curr at most N1; else the units
	-- the sliding window holds at now (the check's estimate) as curr, at
	-- most N1, in W1's window holding now.
	local function convert_counter(s, n0, w0, b0)
		local last, e, prev, curr = at(s, 29), at(s, 37), struct.unpack('<I4I4', s, 45)
		local cap = tonum(n0)
		if not window_ok(last, e, w0) or prev > cap or curr > cap then return nil end
		local t = max(now, last)
		if cmp(t, e) >= 0 then
			local start = sub(next_end(t, w0), w0)
			prev = cmp(start, e) == 0 and curr or 0
			curr = 0
			e = add(start, w0)
		end
		cap = tonum(N1)
		if cmp(W1, w0) == 0 then
			prev, curr = math.min(prev, cap), math.min(curr, cap)
		else
			local u = add(small(curr), ceil_div(mul(small(prev), sub(e, t)), w0))
			prev, curr = 0, tonum(min(u, N1))
			e = next_end(t, W1)
		end
		return put(t) .. put(e) .. struct.pack('<I4I4', prev, curr)
	end

	-- sliding_log: checked under the old rule; the runs are absolute times
	-- and stay, but for those at or before now - min(W0, W1), which have
	-- left a window (so a longer W1 never counts admissions older than W0);
	-- the last seen time is now.
	local function convert_log(s, n0, w0, b0)
		local last = at(s, 29)
		if not time_ok(last) then return nil end
		local t = max(now, last)
		local m = min(w0, W1)
		local horizon = cmp(t, m) >= 0 and sub(t, m) or nil -- nil: before 0, nothing has left
		local total, prev, keep = 0, nil, #s + 1
		for pos = 37, #s - 11, 12 do
			local lo, hi, c = struct.unpack('<I4I4I4', s, pos)
			local a = of_words(lo, hi)
			if c < 1 or (prev and cmp(a, prev) <= 0) or cmp(a, last) > 0 or
				(not prev and cmp(add(a, w0), last) <= 0) then
				return nil
			end
			if keep > pos and not (horizon and cmp(a, horizon) <= 0) then keep = pos end
			total, prev = total + c, a
		end
		if total > 2000000 then return nil end -- 2 * RL_LIMIT_MAX: a lower N may have followed a higher; a settle's debt
		return put(t) .. string.sub(s, keep)
	end

	return { small = small, num = num, str = str, tonum = tonum, cmp = cmp, add = add, sub = sub, mul = mul,
		divmod = divmod, ceil_div = ceil_div, max = max, min = min, ZERO = ZERO, ONE = ONE,
		INT64_MAX = INT64_MAX, finish = finish, load_level = load_level, sat = sat, now = now,
		of_words = of_words, words_of = words_of, at = at, level_at = level_at, put = put,
		put_level = put_level, time_ok = time_ok, window_ok = window_ok, gcra_of = gcra_of, gcra_cap = gcra_cap,
		gcra_load = gcra_load, gcra_put = gcra_put, gcra_v3 = gcra_v3,
		next_end = next_end, key = key, grace = grace, MS = MS,
		convert_level = convert_level, convert_gcra = convert_gcra, convert_fixed = convert_fixed,
		convert_counter = convert_counter, convert_log = convert_log,
		n = num(ARGV[2]), w = num(ARGV[3]), b = num(ARGV[4]), cost = cost }
end

-- Arguments: ARGV[1] the time in ns, or '' for Redis's TIME; ARGV[2..4]
-- N, W, B (validated by the client; W as a Lua number is exact below
-- 2^53, which is all the fast track uses; B read by the scripts that use
-- it); ARGV[5] the TTL grace, ms (added to every TTL); ARGV[6] the request's
-- cost in units, 1..10^9 (the algorithms' scripts).
local A = ARGV
local nh, nl -- now: (div 10^9, mod 10^9)
if A[1] == '' then
	local t = redis.call('TIME')
	nh, nl = t[1] + 0, t[2] * 1000
else
	nh, nl = split(A[1])
end
if nh > 4000000000 or (nh == 4000000000 and nl > 0) then return redis.error_reply('ratelab: time out of range') end
local n, w = A[2] + 0, A[3] + 0
local burst = A[4] + 0 -- the rule's burst as stored: N for the window algorithms (state())
local costn = tonumber(A[6]) or 1

-- The state ids (FNV-1a of the algorithm's name folded to 7 bits, as the
-- module's rlm_id_of), the one table of them: ALGO_IDS by name, ID_NAMES
-- by id (128 the breaker, 129 a policy's value).
local ALGO_IDS = { token_bucket = 5, leaky_bucket = 61, gcra = 52, fixed_window = 88, sliding_counter = 123,
	sliding_log = 114 }
local ID_NAMES = { [128] = 'breaker', [129] = 'policy' }
for name, i in pairs(ALGO_IDS) do ID_NAMES[i] = name end

-- The stored form (docs/redis.md, "Stored form"): a string, every integer
-- little-endian: 'r', 'l', 4, the state's id (FNV-1a of the algorithm's
-- name folded to 7 bits, as the module's rlm_id_of; 128 the breaker);
-- then, but for the breaker, the rule it was last written under (limit,
-- window_ns, burst: 8 bytes each); then the body, the library's state.
-- A version 3 value is read as version 4 but for gcra's body, {tat_ns,
-- last_ns} without v4's tat_frac (wide(): gcra_v3); a version 2 value (v3
-- without the rule) as v3 written under this call's rule.
--
-- The key's value for algorithm alg (state id id, a body of fixed bytes
-- and, for a log, any number of run-byte runs), as a version 4 string
-- under this call's rule: the stored one as it is when it was written
-- under this rule, else converted by the wide track's function named
-- convert, (s, n0, w0, b0) with the old rule in limbs, which returns the
-- new body or nil for a state damaged under the old rule. Returns nil, the
-- string (false: an absent key), the header as a u32 (H), W's words (wlo,
-- whi) and whether the state was converted; or the error to reply with.
-- A value is written as the u32s H, N, 0, wlo, whi, B, 0, then the body.
local function state(alg, id, fixed, run, convert)
	local key = KEYS[1]
	-- the window algorithms have no burst: the client passes 0 or N, and
	-- their rule holds B = N (struct rl_rule), as the module stores it
	local windowed = id == 88 or id == 123 or id == 114
	if windowed then
		if burst ~= 0 and burst ~= n then
			return redis.error_reply("ratelab: burst '" .. A[4] .. "' does not apply to " .. alg ..
				': pass 0 or the limit (' .. string.format('%d', n) .. ')')
		end
		burst = n
	end
	local H, wlo, whi = 289906 + id * 16777216, 0, 0 -- 'r' + 'l' * 2^8 + 4 * 2^16
	if id ~= 128 then
		if w < 9007199254740992 then
			whi = math.floor(w / TWO32)
			wlo = w - whi * TWO32
		else
			wlo, whi = words(split(A[3]))
		end
	end
	local s = redis.pcall('GET', key)
	if type(s) == 'table' then
		local t = redis.call('TYPE', key)
		local held = ({ list = 'a list', hash = 'a hash', set = 'a set', zset = 'a sorted set',
			stream = 'a stream' })[t.ok or t] or 'a value of a module type'
		return damaged(nil, 'WRONGTYPE ratelab: key ', ' holds ' .. held .. ', not ratelab state')
	end
	if not s then return nil, false, H, wlo, whi, false end
	local m1, m2, ver, got = string.byte(s, 1, 4)
	if #s < 4 or m1 ~= 114 or m2 ~= 108 or (ver ~= 4 and ver ~= 3 and ver ~= 2) then
		return damaged(nil, 'WRONGTYPE ratelab: key ', ' holds a string of ' .. #s ..
			' bytes that is not ratelab state')
	end
	if got ~= id then
		local held = ID_NAMES[got]
		return damaged(nil, 'ratelab: key ', ' holds ' .. (held or "unknown (a newer ratelab's?)") ..
			' state, not ' .. alg)
	end
	local head, b = 4, burst -- the header's and rule's bytes
	if id ~= 128 then
		head = 28
		if ver == 2 then s = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0) .. string.sub(s, 5) end
	end
	local old = id == 52 and ver < 4 -- gcra's v2/v3 body: 8 bytes fewer
	local len = #s - head - (old and fixed - 8 or fixed)
	if len < 0 or (run == 0 and len ~= 0) or (run > 0 and len % run ~= 0) then return damaged(alg) end
	if head == 4 then return nil, s, H, wlo, whi, false end
	local n0, z1, wl, wh, b0, z2 = struct.unpack('<I4I4I4I4I4I4', s, 5)
	local same = n0 == n and wl == wlo and wh == whi and b0 == b and z1 == 0 and z2 == 0
	-- written under another rule: a valid one, and the state valid under it
	if not same and (z1 ~= 0 or z2 ~= 0 or n0 < 1 or n0 > 1000000 or b0 < 1 or b0 > 1000000000 or
		(windowed and b0 ~= n0) or (wl == 0 and wh == 0) or
		wh > 232830643 or (wh == 232830643 and wl > 2808348672)) then
		return damaged(alg)
	end
	local X
	if old then
		X = wide(nh, nl, costn)
		local body = X.gcra_v3(s, X.small(n0), X.of_words(wl, wh), X.small(b0))
		if not body then return damaged(alg) end
		s = string.sub(s, 1, 28) .. body
	end
	if same then return nil, s, H, wlo, whi, false end
	X = X or wide(nh, nl, costn)
	-- (leaky_bucket's level may hold one W more than B * W: the one in service)
	local body = X[convert](s, X.small(n0), X.of_words(wl, wh), X.small(b0), id == 61)
	if not body then return damaged(alg) end
	return nil, struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0) .. body, H, wlo, whi, true
end
