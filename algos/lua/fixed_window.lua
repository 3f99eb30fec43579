-- fixed_window.lua - algos/src/fixed_window.c in Redis: windows
-- [kW, (k+1)W); admit iff fewer than N were admitted in t's window.
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
local verdict = count < limit and 1 or 0
count = count + verdict
local to_end = sub(wend, now)
return finish(ALG, verdict, small(limit - count), verdict == 1 and ZERO or to_end,
	count > 0 and to_end or ZERO, ZERO,
	{ 'last', str(now), 'end', str(wend), 'count', tostring(count) })
