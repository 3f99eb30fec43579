-- gcra.lua - algos/src/gcra.c in Redis: T = ceil(W / N), tau =
-- min((B - 1) * T, RL_GCRA_HORIZON_NS - T); a request of cost c is
-- admitted iff TAT - t + (c - 1) * T <= tau, then TAT = max(TAT, t) + c * T.
-- The state is the library's struct rl_gcra {tat_ns, last_ns}, stored as
-- the module stores it (lib.lua, state()); a TAT more than a settle's
-- debt cap, min(2 * (tau + T), horizon), past the last seen time, or a time out of range, is damaged. Fast track: T
-- and tau below 2^51 (then tau = (B - 1) * T, the horizon being above
-- 5 * 10^18) and the debt TAT - t below 2^51.
local ALG = 'gcra'
local err, s, H, wlo, whi = state(ALG, 52, 16, 0, 'convert_gcra')
if err then return err end
local b = A[4] + 0

repeat
	if w >= LIMIT then break end
	local t = fceil(w, n)
	local tol = (b - 1) * t
	if tol >= LIMIT then break end
	local alo, ahi, tlo, thi = 0, 0, 0, 0
	if s then alo, ahi, tlo, thi = struct.unpack('<I4I4I4I4', s, 29) end
	if ahi >= 2147483648 or not time_ok(tlo, thi) then return damaged(ALG) end
	local ah, al = pair(alo, ahi)
	local th, tl = pair(tlo, thi)
	-- TAT - last: exact, or beyond 2^53 with its sign
	if (ah - th) * E9 + (al - tl) > 2 * (tol + t) then return damaged(ALG) end
	if th > nh or (th == nh and tl > nl) then nh, nl = th, tl else tlo = nil end -- now clamped to last
	local debt = (ah - nh) * E9 + (al - nl)
	if debt < 0 then debt = 0 end
	-- rounded only when above 2^53, and then still above tau
	local lastu = (costn - 1) * t
	if lastu > tol then
		return answer(0, debt <= tol and fdiv(tol - debt, t) + 1 or 0, NEVER, debt, 0)
	end
	local verdict, retry = 0, 0
	if debt + lastu <= tol then
		verdict, debt = 1, debt + lastu + t
		alo, ahi = words(norm(nh, nl + debt))
	else
		retry = debt - (tol - lastu)
	end
	if not tlo then tlo, thi = words(nh, nl) end
	save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0,
		alo, ahi, tlo, thi), fceil(debt, 1000000) + A[5])
	return answer(verdict, debt <= tol and fdiv(tol - debt, t) + 1 or 0, retry, debt, 0)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, mul, cmp, max = X.add, X.sub, X.mul, X.cmp, X.max
local divmod, small, ZERO, ONE = X.divmod, X.small, X.ZERO, X.ONE
local last, tat0 = ZERO, ZERO
if s then tat0, last = X.at(s, 29), X.at(s, 37) end
local tol, t = X.gcra_of(X.n, X.w, X.b)
if not X.time_ok(last) or cmp(tat0, X.INT64_MAX) > 0 or
	(cmp(tat0, last) > 0 and cmp(sub(tat0, last), X.gcra_cap(tol, t)) > 0) then
	return damaged(ALG)
end
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
return X.finish(verdict, remaining, retry, debt, ZERO, prefix .. X.put(tat0) .. X.put(now), cmp(lastu, tol) > 0)
