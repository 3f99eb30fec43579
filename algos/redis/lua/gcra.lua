-- gcra.lua - algos/src/gcra.c in Redis: T = ceil(W / N), tau =
-- min((B - 1) * T, RL_GCRA_HORIZON_NS - T); a request of cost c is
-- admitted iff TAT - t + (c - 1) * T <= tau, then TAT = max(TAT, t) + c * T.
local ALG = 'gcra'
local err, st = load(ALG, { 'last', 'tat' })
if err then return err end
local last, tat0 = field(st, 'last'), field(st, 'tat')
local HORIZON = { 4775807, 7203685, 52233 } -- RL_GCRA_HORIZON_NS = 5223372036854775807
local t = ceil_div(w, n)
local tol = min(mul(sub(b, ONE), t), sub(HORIZON, t))
local lastu = mul(small(costn - 1), t)
now = max(now, last)
local tat = max(tat0, now)
local debt = sub(tat, now)
local verdict = (cmp(lastu, tol) <= 0 and cmp(add(debt, lastu), tol) <= 0) and 1 or 0
if verdict == 1 then
	debt = add(debt, add(lastu, t))
	tat0 = add(tat, add(lastu, t))
end
local remaining = cmp(debt, tol) <= 0 and add(divmod(sub(tol, debt), t), ONE) or ZERO
local retry = ZERO
if verdict == 0 then
	-- (c - 1) * T > tau never passes; else the smallest d with debt - d + (c - 1) * T <= tau
	retry = cmp(lastu, tol) > 0 and INT64_MAX or sub(debt, sub(tol, lastu))
end
return finish(ALG, verdict, remaining, retry, debt, ZERO, { 'last', str(now), 'tat', str(tat0) }, nil,
	cmp(lastu, tol) > 0)
