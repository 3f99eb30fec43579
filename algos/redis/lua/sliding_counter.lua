-- sliding_counter.lua - algos/src/sliding_counter.c in Redis: with
-- e = t mod W, a request of cost c is admitted iff
-- prev * (W - e) + (curr + c - 1) * W < N * W, then curr += c. The state
-- is the library's struct rl_sliding_counter {last_ns, end_ns, prev,
-- curr}, stored as the module stores it (lib.lua, state()); an end that
-- is not a multiple of W in (last, last + W], a count above N or a time
-- out of range is damaged. Fast track: N * W and the weighted count below
-- 2^51, and W below 9 * 10^12.
local ALG = 'sliding_counter'
local err, s, H, wlo, whi = state(ALG, 123, 24, 0, 'convert_counter')
if err then return err end
local limit = n

repeat
	local quota = n * w
	if quota >= LIMIT then break end
	local llo, lhi, elo, ehi, prev, curr = 0, 0, 0, 0, 0, 0
	local eh, el = 0, 0
	if s then
		llo, lhi, elo, ehi, prev, curr = struct.unpack('<I4I4I4I4I4I4', s, 29)
		local lh, ll = pair(llo, lhi)
		eh, el = pair(elo, ehi)
		local r = tmod(eh, el, w)
		if not r then break end
		local span = (eh - lh) * E9 + (el - ll)
		if r ~= 0 or span <= 0 or span > w or prev > limit or curr > limit or not time_ok(llo, lhi) then
			return damaged(ALG)
		end
		if lh > nh or (lh == nh and ll > nl) then nh, nl = lh, ll else llo = nil end -- now clamped to last
	else
		llo = nil
	end
	local renewed = false
	local e
	if not (eh > nh or (eh == nh and el > nl)) then
		renewed = true
		local r = tmod(nh, nl, w)
		if not r then break end
		local sh, sl = norm(nh, nl - r)
		if sh == eh and sl == el then prev = curr else prev = 0 end
		curr, e = 0, r
		eh, el = norm(sh, sl + w)
	else
		e = w - ((eh - nh) * E9 + (el - nl)) -- the end is within W of last, so of now
	end
	local used = prev * (w - e) + curr * w
	if used >= LIMIT then break end
	local verdict = 0
	if costn <= limit and used + (costn - 1) * w < quota then
		verdict, curr, used = 1, curr + costn, used + costn * w
	end

	-- The least offset e' into a window whose weighted count is c with
	-- c * (W - e') < room (0 when c is 0).
	local function least_offset(c, room)
		if c == 0 then return 0 end
		local span = fdiv(room - 1, c)
		return span >= w and 0 or w - span
	end

	local to_end = w - e
	local remaining = used < quota and fceil(quota - used, w) or 0
	local retry = 0
	if verdict == 0 and costn > limit then
		retry = NEVER
	elseif verdict == 0 then
		-- within this window, as prev's weight fades, if curr leaves room for c...
		local at = w
		if curr + costn <= limit then at = least_offset(prev, (limit - curr - costn + 1) * w) end
		-- ...else early in the next, where curr becomes the weighted count
		if at < w then
			retry = at - e
			if retry < 0 then break end
		else
			retry = to_end + least_offset(curr, (limit - costn + 1) * w)
		end
	end
	local reset = 0
	if used >= w and curr == 0 then
		reset = least_offset(prev, w) - e
		if reset < 0 then break end
	elseif used >= w then
		reset = to_end + least_offset(curr, w)
	end
	if costn <= limit then
		if not llo then llo, lhi = words(nh, nl) end
		if renewed then elo, ehi = words(eh, el) end
		save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0,
			llo, lhi, elo, ehi, prev, curr), fceil(reset, 1000000) + A[5])
	end
	return answer(verdict, remaining, retry, reset, 0)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, mul, cmp, divmod, ceil_div = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div
local small, ZERO, ONE, w = X.small, X.ZERO, X.ONE, X.w
local last, wend, prev, curr = ZERO, ZERO, 0, 0
if s then
	last, wend, prev, curr = X.at(s, 29), X.at(s, 37), struct.unpack('<I4I4', s, 45)
	if not X.window_ok(last, wend, w) or prev > limit or curr > limit then return damaged(ALG) end
end
local now = X.max(X.now, last)
if cmp(now, wend) >= 0 then
	local _, r = divmod(now, w)
	local start = sub(now, r)
	prev = cmp(start, wend) == 0 and curr or 0
	curr = 0
	wend = add(start, w)
end
local e = sub(now, sub(wend, w))
local quota = mul(X.n, w)
local used = add(mul(small(prev), sub(w, e)), mul(small(curr), w))
local verdict = cmp(add(used, mul(small(costn - 1), w)), quota) < 0 and 1 or 0
if verdict == 1 then
	curr = curr + costn
	used = add(used, mul(X.cost, w))
end

-- The least offset e' into a window whose weighted count is c with
-- c * (W - e') < room (0 when c is 0).
local function least_offset(c, room)
	if c == 0 then return ZERO end
	local span = divmod(sub(room, ONE), small(c))
	return cmp(span, w) >= 0 and ZERO or sub(w, span)
end

local to_end = sub(wend, now)
local remaining = cmp(used, quota) < 0 and ceil_div(sub(quota, used), w) or ZERO
local retry = ZERO
if verdict == 0 and costn > limit then
	retry = X.INT64_MAX
elseif verdict == 0 then
	-- within this window, as prev's weight fades, if curr leaves room for c...
	local at = w
	if curr + costn <= limit then at = least_offset(prev, mul(small(limit - curr - costn + 1), w)) end
	-- ...else early in the next, where curr becomes the weighted count
	retry = cmp(at, w) < 0 and sub(at, e) or add(to_end, least_offset(curr, mul(small(limit - costn + 1), w)))
end
local reset
if cmp(used, w) < 0 then
	reset = ZERO
elseif curr == 0 then
	reset = sub(least_offset(prev, w), e)
else
	reset = add(to_end, least_offset(curr, w))
end
return X.finish(verdict, remaining, retry, reset, ZERO,
	prefix .. X.put(now) .. X.put(wend) .. struct.pack('<I4I4', prev, curr), costn > limit)
