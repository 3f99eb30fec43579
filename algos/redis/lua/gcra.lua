-- gcra.lua - algos/src/gcra.c in Redis: T = ceil(W / N), tau =
-- min((B - 1) * T, RL_GCRA_HORIZON_NS - T); a request of cost c is
-- admitted iff TAT - t + (c - 1) * T <= tau, then TAT = max(TAT, t) + c * T.
-- Fast track: T and tau below 2^51 (then tau = (B - 1) * T, the horizon
-- being above 5 * 10^18) and the debt TAT - t below 2^51.
local ALG = 'gcra'
local err, v = read(ALG, 'last', 'tat')
if err then return err end
local b = A[4] + 0

repeat
	if w >= LIMIT then break end
	local t = fceil(w, n)
	local tol = (b - 1) * t
	if tol >= LIMIT then break end
	local clamped = clamp(v[2])
	local th, tl = split(v[3])
	local debt = (th - nh) * E9 + (tl - nl) -- exact, or beyond 2^53 with its sign
	if debt < 0 then debt = 0 elseif debt >= LIMIT then break end
	-- rounded only when above 2^53, and then still above tau
	local lastu = (costn - 1) * t
	if lastu > tol then
		return answer(0, debt <= tol and fdiv(tol - debt, t) + 1 or 0, NEVER, debt, 0)
	end
	local tat, verdict, retry = v[3] or '0', 0, 0
	if debt + lastu <= tol then
		verdict, debt = 1, debt + lastu + t
		tat = dec(norm(nh, nl + debt))
	else
		retry = debt - (tol - lastu)
	end
	store(v[1] and true or ALG, debt, 'last', clamped and v[2] or now_s or dec(nh, nl), 'tat', tat)
	return answer(verdict, debt <= tol and fdiv(tol - debt, t) + 1 or 0, retry, debt, 0)
until true

local X = wide({ 'last', 'tat' }, v, nh, nl, costn)
local add, sub, mul, cmp, max, min = X.add, X.sub, X.mul, X.cmp, X.max, X.min
local divmod, ceil_div, small, str, ZERO, ONE = X.divmod, X.ceil_div, X.small, X.str, X.ZERO, X.ONE
local last, tat0 = X.field('last'), X.field('tat')
local HORIZON = { 4775807, 7203685, 52233 } -- RL_GCRA_HORIZON_NS = 5223372036854775807
local t = ceil_div(X.w, X.n)
local tol = min(mul(sub(X.b, ONE), t), sub(HORIZON, t))
local lastu = mul(small(costn - 1), t)
local now = max(X.now, last)
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
	retry = cmp(lastu, tol) > 0 and X.INT64_MAX or sub(debt, sub(tol, lastu))
end
return X.finish(ALG, verdict, remaining, retry, debt, ZERO, { 'last', str(now), 'tat', str(tat0) }, nil,
	cmp(lastu, tol) > 0)
