-- fixed_window.lua - algos/src/fixed_window.c in Redis: windows
-- [kW, (k+1)W); a request of cost c is admitted iff the units admitted in
-- t's window plus c are at most N. Fast track: the window's end within
-- 2^51 ns of now, and W below 9 * 10^12 when a new window starts.
local ALG = 'fixed_window'
local err, v = read(ALG, 'last', 'end', 'count')
if err then return err end
local limit = n

repeat
	local count = tonumber(v[4] or '0')
	local clamped = clamp(v[2])
	local eh, el = split(v[3])
	local wend, renewed = v[3] or '0', false
	if not (eh > nh or (eh == nh and el > nl)) then
		local r = tmod(nh, nl, w)
		if not r then break end
		eh, el = norm(nh, nl - r + w)
		wend, count, renewed = dec(eh, el), 0, true
	end
	local to_end = (eh - nh) * E9 + (el - nl)
	if to_end >= LIMIT then break end
	local remaining = limit - count
	if costn > limit then
		return answer(0, remaining > 0 and remaining or 0, NEVER, count > 0 and to_end or 0, 0)
	end
	local verdict, retry = 0, to_end
	if costn <= remaining then verdict, retry, count = 1, 0, count + costn end
	local reset = count > 0 and to_end or 0
	local last = clamped and v[2] or now_s or dec(nh, nl)
	if renewed then -- a new window, or a new key (whose stored end reads as 0)
		store(v[1] and true or ALG, reset, 'last', last, 'end', wend, 'count', tostring(count))
	else -- the stored end stays as it is: one field less to write
		store(true, reset, 'last', last, 'count', tostring(count))
	end
	remaining = limit - count
	return answer(verdict, remaining > 0 and remaining or 0, retry, reset, 0)
until true

local X = wide({ 'last', 'end', 'count' }, v, nh, nl, costn)
local add, sub, cmp, divmod, str, ZERO = X.add, X.sub, X.cmp, X.divmod, X.str, X.ZERO
local count = tonumber(v[4] or '0')
local last, wend = X.field('last'), X.field('end')
local now = X.max(X.now, last)
if cmp(now, wend) >= 0 then
	local _, r = divmod(now, X.w)
	wend = add(sub(now, r), X.w)
	count = 0
end
local verdict = count + costn <= limit and 1 or 0
if verdict == 1 then count = count + costn end
local to_end = sub(wend, now)
local retry = ZERO
if verdict == 0 then retry = costn > limit and X.INT64_MAX or to_end end
return X.finish(ALG, verdict, X.small(limit - count), retry, count > 0 and to_end or ZERO, ZERO,
	{ 'last', str(now), 'end', str(wend), 'count', tostring(count) }, nil, costn > limit)
