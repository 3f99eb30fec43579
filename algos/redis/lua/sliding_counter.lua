-- sliding_counter.lua - algos/src/sliding_counter.c in Redis: with
-- e = t mod W, a request of cost c is admitted iff
-- prev * (W - e) + (curr + c - 1) * W < N * W, then curr += c.
local ALG = 'sliding_counter'
local err, st = load(ALG, { 'last', 'end', 'prev', 'curr' })
if err then return err end
local last, wend = field(st, 'last'), field(st, 'end')
local prev, curr = tonumber(st['prev'] or '0'), tonumber(st['curr'] or '0')
local limit = tonum(n)
now = max(now, last)
if cmp(now, wend) >= 0 then
	local _, r = divmod(now, w)
	local start = sub(now, r)
	prev = cmp(start, wend) == 0 and curr or 0
	curr = 0
	wend = add(start, w)
end
local e = sub(now, sub(wend, w))
local quota = mul(n, w)
local used = add(mul(small(prev), sub(w, e)), mul(small(curr), w))
local verdict = cmp(add(used, mul(small(costn - 1), w)), quota) < 0 and 1 or 0
if verdict == 1 then
	curr = curr + costn
	used = add(used, mul(cost, w))
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
	retry = INT64_MAX
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
return finish(ALG, verdict, remaining, retry, reset, ZERO,
	{ 'last', str(now), 'end', str(wend), 'prev', tostring(prev), 'curr', tostring(curr) }, nil,
	costn > limit)
