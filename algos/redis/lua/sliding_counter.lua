-- sliding_counter.lua - algos/src/sliding_counter.c in Redis: with
-- e = t mod W, a request of cost c is admitted iff
-- prev * (W - e) + (curr + c - 1) * W < N * W, then curr += c.
-- Fast track: N * W and the weighted count below 2^51, and W below
-- 9 * 10^12 when a new window starts.
local ALG = 'sliding_counter'
local err, v = read(ALG, 'last', 'end', 'prev', 'curr')
if err then return err end
local limit = n

repeat
	local quota = n * w
	if quota >= LIMIT then break end
	local prev, curr = tonumber(v[4] or '0'), tonumber(v[5] or '0')
	local prev_s = v[4] or '0' -- prev's string, kept unless a new window starts
	local clamped = clamp(v[2])
	local eh, el = split(v[3])
	local wend, renewed = v[3] or '0', false
	local e
	if not (eh > nh or (eh == nh and el > nl)) then
		renewed = true
		local r = tmod(nh, nl, w)
		if not r then break end
		local sh, sl = norm(nh, nl - r)
		if sh == eh and sl == el then prev, prev_s = curr, v[5] or '0' else prev, prev_s = 0, '0' end
		curr, e = 0, r
		eh, el = norm(sh, sl + w)
		wend = dec(eh, el)
	else
		-- the window's start, end - W, is at most now (a wider rule's window: the wide track)
		e = w - ((eh - nh) * E9 + (el - nl))
		if e < 0 or (eh < 9000000 and eh * E9 + el < w) then break end
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
		local last = clamped and v[2] or now_s or dec(nh, nl)
		if renewed then -- a new window, or a new key (whose stored end reads as 0)
			store(v[1] and true or ALG, reset, 'last', last, 'end', wend, 'prev', prev_s, 'curr', tostring(curr))
		else -- end and prev stay as they are: two fields less to write
			store(true, reset, 'last', last, 'curr', tostring(curr))
		end
	end
	return answer(verdict, remaining, retry, reset, 0)
until true

local X = wide({ 'last', 'end', 'prev', 'curr' }, v, nh, nl, costn)
local add, sub, mul, cmp, divmod, ceil_div = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div
local small, str, ZERO, ONE, w = X.small, X.str, X.ZERO, X.ONE, X.w
local prev, curr = tonumber(v[4] or '0'), tonumber(v[5] or '0')
local last, wend = X.field('last'), X.field('end')
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
return X.finish(ALG, verdict, remaining, retry, reset, ZERO,
	{ 'last', str(now), 'end', str(wend), 'prev', tostring(prev), 'curr', tostring(curr) }, nil,
	costn > limit)
