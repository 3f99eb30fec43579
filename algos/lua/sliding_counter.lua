-- sliding_counter.lua - algos/src/sliding_counter.c in Redis: with
-- e = t mod W, admit iff prev * (W - e) + curr * W < N * W.
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
local verdict = cmp(used, quota) < 0 and 1 or 0
if verdict == 1 then
	curr = curr + 1
	used = add(used, w)
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
if verdict == 0 then
	local at = w
	if curr < limit then at = least_offset(prev, mul(small(limit - curr), w)) end
	retry = cmp(at, w) < 0 and sub(at, e) or add(to_end, least_offset(curr, quota))
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
	{ 'last', str(now), 'end', str(wend), 'prev', tostring(prev), 'curr', tostring(curr) })
