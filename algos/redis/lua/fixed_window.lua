-- fixed_window.lua - algos/src/fixed_window.c in Redis: windows
-- [kW, (k+1)W); a request of cost c is admitted iff the units admitted in
-- t's window plus c are at most N.
local ALG = 'fixed_window'
local err, st = load(ALG, { 'last', 'end', 'count' })
if err then return err end
local last, wend = field(st, 'last'), field(st, 'end')
local count = tonumber(st['count'] or '0')
local limit = tonum(n)
now = max(now, last)
if cmp(now, wend) >= 0 then
	local _, r = divmod(now, w)
	wend = add(sub(now, r), w)
	count = 0
end
local verdict = count + costn <= limit and 1 or 0
if verdict == 1 then count = count + costn end
local to_end = sub(wend, now)
local retry = ZERO
if verdict == 0 then retry = costn > limit and INT64_MAX or to_end end
return finish(ALG, verdict, small(limit - count), retry, count > 0 and to_end or ZERO, ZERO,
	{ 'last', str(now), 'end', str(wend), 'count', tostring(count) }, nil, costn > limit)
