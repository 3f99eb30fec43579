-- gcra.lua - algos/src/gcra.c in Redis: T = ceil(W / N), tau =
-- min((B - 1) * T, RL_GCRA_HORIZON_NS - T); admit iff TAT - t <= tau, then
-- TAT = max(TAT, t) + T.
local ALG = 'gcra'
local err, st = load(ALG, { 'last', 'tat' })
if err then return err end
local last, tat0 = field(st, 'last'), field(st, 'tat')
local HORIZON = num('5223372036854775807')
local t = ceil_div(w, n)
local tol = min(mul(sub(b, ONE), t), sub(HORIZON, t))
now = max(now, last)
local tat = max(tat0, now)
local debt = sub(tat, now)
local verdict = cmp(debt, tol) <= 0 and 1 or 0
if verdict == 1 then
	debt = add(debt, t)
	tat0 = add(tat, t)
end
local remaining = cmp(debt, tol) <= 0 and add(divmod(sub(tol, debt), t), ONE) or ZERO
local retry = verdict == 1 and ZERO or sub(debt, tol)
return finish(ALG, verdict, remaining, retry, debt, ZERO, { 'last', str(now), 'tat', str(tat0) })
