-- settle.lua - algos/src/settle.c in Redis, RATELAB.SETTLE's meaning
-- (settle.h, each algorithm's header): the request admitted at
-- admitted_ns settled by delta units at now, on the key's state as the
-- module stores it (lib.lua, state(): a state written under another rule
-- is converted first, a damaged one is the error naming the key). A key
-- with no state is the error naming it (nothing admitted to settle).
-- Arguments: lib.lua's ARGV[1..5] (now, N, W, B, grace), then ARGV[6] the
-- algorithm's name, ARGV[7] admitted_ns (an integer in [0, now]), ARGV[8]
-- delta (a non-zero integer in [-10^9, 10^9]). Replies the key's reset_ns
-- after the settle (a decimal string), and sets the TTL a check sets
-- (that wait in ms, rounded up, plus grace; 0 deletes the key). A settle
-- is rare beside checks: it runs on the wide track (lib.lua's limbs) only.
local ALG = A[6]
local spec = ({ token_bucket = { 5, 24, 0, 'convert_level' }, leaky_bucket = { 61, 24, 0, 'convert_level' },
	gcra = { 52, 24, 0, 'convert_gcra' }, fixed_window = { 88, 24, 0, 'convert_fixed' },
	sliding_counter = { 123, 24, 0, 'convert_counter' }, sliding_log = { 114, 8, 12, 'convert_log' } })[ALG]
if not spec then
	return redis.error_reply("ratelab: unknown algorithm '" .. tostring(ALG) ..
		"' (one of: token_bucket, gcra, leaky_bucket, fixed_window, sliding_log, sliding_counter)")
end
local adm_s, delta_s = A[7] or '', A[8] or ''
if not string.match(adm_s, '^%d+$') or #adm_s > 19 then
	return redis.error_reply("ratelab: admitted_ns '" .. adm_s .. "' is not an integer in [0, 4000000000000000000]")
end
local sign, digits = string.match(delta_s, '^(%-?)(%d+)$')
if not digits or #digits > 10 or tonumber(digits) > 1000000000 then
	return redis.error_reply("ratelab: delta '" .. delta_s .. "' is not an integer in [-1000000000, 1000000000]")
end
local mag = tonumber(digits)
if mag == 0 then
	return redis.error_reply("ratelab: delta '0' settles nothing: pass a non-zero integer in [-1000000000, 1000000000]")
end
local charge = sign == ''
local err, s, H, wlo, whi = state(ALG, spec[1], spec[2], spec[3], spec[4])
if err then return err end
if not s then return damaged(nil, 'ratelab: key ', ' holds no state: nothing admitted to settle') end

local X = wide(nh, nl, 1)
local add, sub, mul, cmp, divmod, ceil_div, small = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div, X.small
local min, max, ZERO, at = X.min, X.max, X.ZERO, X.at
local adm = X.num(adm_s)
if cmp(adm, X.now) > 0 then
	return redis.error_reply("ratelab: admitted_ns '" .. adm_s .. "' is after now_ns '" .. X.str(X.now) .. "'")
end
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local limit = n
local d = small(mag)

-- the body written back and the wait until the key's quota is back, ns
local body, reset

if ALG == 'token_bucket' or ALG == 'leaky_bucket' then
	-- the level at now plus delta * W, in [0, 2 * B * W (+ W: leaky_bucket)]
	local deep = ALG == 'leaky_bucket'
	local level, now = X.load_level(s, 29, X.n, X.w, X.b, deep)
	if not level then return damaged(ALG) end
	local cap = mul(add(X.b, X.b), X.w)
	if deep then cap = add(cap, X.w) end
	local units = mul(d, X.w)
	if charge then
		level = min(add(level, units), cap)
	else
		level = cmp(level, units) > 0 and sub(level, units) or ZERO
	end
	body = X.put(now) .. X.put_level(level) .. '\0\0\0\0'
	reset = ceil_div(level, X.n)
elseif ALG == 'gcra' then
	-- in 1/N ns (gcra.h): the debt max(TAT, now) - now plus delta * W, in
	-- [0, the debt cap]; TAT = now + debt
	local debt, now = X.gcra_load(s, X.n, X.w, X.b)
	if not debt then return damaged(ALG) end
	local cap = X.gcra_cap(X.gcra_of(X.n, X.w, X.b), X.w, X.n)
	local units = mul(d, X.w)
	if charge then
		debt = min(add(debt, units), cap)
	else
		debt = cmp(debt, units) > 0 and sub(debt, units) or ZERO
	end
	body = X.gcra_put(now, debt, X.n)
	reset = ceil_div(debt, X.n)
elseif ALG == 'fixed_window' then
	-- the count of the admission's window while now is in it, in [0, N]; last_ns stays
	local last, wend, count = at(s, 29), at(s, 37), struct.unpack('<I4', s, 45)
	if not X.window_ok(last, wend, X.w) or count > limit then return damaged(ALG) end
	local now = max(X.now, last)
	local start = sub(wend, X.w)
	if cmp(adm, start) >= 0 and cmp(adm, wend) < 0 and cmp(now, wend) < 0 then
		count = charge and math.min(count + mag, limit) or math.max(count - mag, 0)
	end
	body = X.put(last) .. X.put(wend) .. struct.pack('<I4I4', count, 0)
	-- a check past the window's end renews it with nothing counted
	reset = (cmp(now, wend) < 0 and count > 0) and sub(wend, now) or ZERO
elseif ALG == 'sliding_counter' then
	-- the counter of the admission's window while it is the current or the
	-- previous one at now, in [0, N]; the state is not advanced
	local last, e, prev, curr = at(s, 29), at(s, 37), struct.unpack('<I4I4', s, 45)
	if not X.window_ok(last, e, X.w) or prev > limit or curr > limit then return damaged(ALG) end
	local now = max(X.now, last)
	local w = X.w
	local cs, ps = sub(e, w), cmp(e, add(w, w)) >= 0 and sub(e, add(w, w)) or nil
	local function moved(v) return charge and math.min(v + mag, limit) or math.max(v - mag, 0) end
	if cmp(adm, cs) >= 0 and cmp(adm, e) < 0 and cmp(now, add(e, w)) < 0 then
		curr = moved(curr)
	elseif ps and cmp(adm, ps) >= 0 and cmp(adm, cs) < 0 and cmp(now, e) < 0 then
		prev = moved(prev)
	end
	body = X.put(last) .. X.put(e) .. struct.pack('<I4I4', prev, curr)
	-- the reset a check at now answers (sliding_counter.c's explain): the
	-- counters rolled to now's window, e the offset into it
	local p, c, wend = prev, curr, e
	if cmp(now, wend) >= 0 then
		local start = sub(X.next_end(now, w), w)
		p = cmp(start, wend) == 0 and c or 0
		c = 0
		wend = add(start, w)
	end
	local off = sub(now, sub(wend, w))
	local used = add(mul(small(p), sub(w, off)), mul(small(c), w))
	local function least(cnt) -- least_offset(W, cnt, W)
		if cnt == 0 then return ZERO end
		local span = divmod(sub(w, X.ONE), small(cnt))
		return cmp(span, w) >= 0 and ZERO or sub(w, span)
	end
	if cmp(used, w) < 0 then
		reset = ZERO
	elseif c == 0 then
		reset = sub(least(p), off)
	else
		reset = add(sub(wend, now), least(c))
	end
else -- sliding_log
	-- the run at admitted_ns while it is in the window (admitted_ns > now - W):
	-- a charge keeps the runs' sum at most 2 * N, a refund takes at most the
	-- run's units and drops an emptied run
	local last = at(s, 29)
	if not X.time_ok(last) then return damaged(ALG) end
	local now = max(X.now, last)
	local runs, total, found, prev = {}, 0, nil, nil
	for pos = 37, #s - 11, 12 do
		local lo, hi, c = struct.unpack('<I4I4I4', s, pos)
		local a = X.of_words(lo, hi)
		-- sliding_log.lua's checks: runs of a unit or more, increasing, in (last - W, last]
		if c < 1 or (prev and cmp(a, prev) <= 0) or cmp(a, last) > 0 or
			(not prev and cmp(add(a, X.w), last) <= 0) then
			return damaged(ALG)
		end
		runs[#runs + 1] = { lo, hi, c }
		total, prev = total + c, a
		if cmp(a, adm) == 0 then found = #runs end
	end
	if total > 2000000 then return damaged(ALG) end
	if found and cmp(add(adm, X.w), now) > 0 then
		local r = runs[found]
		if charge then
			local room = 2 * limit - total
			if room < 0 then room = 0 end
			r[3] = r[3] + math.min(mag, room)
		else
			r[3] = r[3] - math.min(mag, r[3])
			if r[3] == 0 then table.remove(runs, found) end
		end
	end
	local parts = { X.put(last) }
	for i = 1, #runs do parts[#parts + 1] = struct.pack('<I4I4I4', runs[i][1], runs[i][2], runs[i][3]) end
	body = table.concat(parts)
	reset = ZERO
	if #runs > 0 then
		local newest = X.of_words(runs[#runs][1], runs[#runs][2])
		local ends = add(newest, X.w)
		if cmp(ends, now) > 0 then reset = sub(ends, now) end
	end
end

reset = X.sat(reset)
local ttl = X.tonum(ceil_div(reset, X.MS)) + X.grace
if ttl > 0 then
	redis.call('SET', X.key, prefix .. body, 'PX', ttl)
else
	redis.call('DEL', X.key)
end
return X.str(reset)
