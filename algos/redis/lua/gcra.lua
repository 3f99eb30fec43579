-- gcra.lua - algos/src/gcra.c in Redis: T = W / N exactly, tau =
-- min((B - 1) * T, RL_GCRA_HORIZON_NS - T); a request of cost c is
-- admitted iff TAT - t + (c - 1) * T <= tau, then TAT = max(TAT, t) + c * T.
-- The state is the library's struct rl_gcra {tat_ns, last_ns, tat_frac}
-- (the TAT is tat_ns + tat_frac / N ns, tat_frac < N), stored as the
-- module stores it (lib.lua, state()); a TAT more than a settle's debt
-- cap, min(2 * (tau + T), horizon), past the last seen time, a tat_frac of
-- N or more, or a time out of range, is damaged.
--
-- Fast track: times past the whole ns as pairs (ns, frac), the value
-- ns + frac / N, 0 <= frac < N <= 10^6, as gcra_ops.h keeps them: T =
-- (W div N, W mod N), tau likewise; every frac product below 10^15 (a
-- cost or burst up to 10^9 times a frac below 10^6) and every ns below
-- 2^52 when W, tau + T and the debt are below 2^51. Wide track: every
-- value in 1/N ns, in limbs.
local ALG = 'gcra'
local err, s, H, wlo, whi = state(ALG, 52, 24, 0, 'convert_gcra')
if err then return err end
local b = A[4] + 0

repeat
	if w >= LIMIT then break end
	local t, tf = fdiv(w, n)
	-- tau = (B - 1) * T: its ns part checked below 2^51 before it is used
	local tol = (b - 1) * t
	if tol >= LIMIT then break end
	local q, tolf = fdiv((b - 1) * tf, n)
	tol = tol + q
	if tol + t >= LIMIT then break end
	local alo, ahi, tlo, thi, flo, fhi = 0, 0, 0, 0, 0, 0
	if s then alo, ahi, tlo, thi, flo, fhi = struct.unpack('<I4I4I4I4I4I4', s, 29) end
	if ahi >= 2147483648 or not time_ok(tlo, thi) or fhi ~= 0 or flo >= n then return damaged(ALG) end
	local ah, al = pair(alo, ahi)
	local th, tl = pair(tlo, thi)
	-- the debt cap 2 * (tau + T) as a pair, and TAT - last (exact, or
	-- beyond 2^53 with its sign) against it
	local capn, capf = fdiv(2 * (tolf + tf), n)
	capn = capn + 2 * (tol + t)
	local gap = (ah - th) * E9 + (al - tl)
	if gap > capn or (gap == capn and flo > capf) then return damaged(ALG) end
	if th > nh or (th == nh and tl > nl) then nh, nl = th, tl else tlo = nil end -- now clamped to last
	-- the debt max(TAT, now) - now: TAT >= now iff tat_ns >= now
	local dn, df = (ah - nh) * E9 + (al - nl), flo
	if dn < 0 then dn, df = 0, 0 end
	-- (c - 1) * T: its ns part rounded only when above 2^53, and then above tau
	local ln, lf = fdiv((costn - 1) * tf, n)
	ln = ln + (costn - 1) * t
	local never = ln > tol or (ln == tol and lf > tolf)
	-- remaining: the largest k with k * T <= tau - debt, plus 1, when the
	-- debt is within tau; k from the doubles, then corrected on pairs
	-- (k <= B <= 10^9: k * frac below 10^15, k * T's ns below 2^52)
	local function remaining(xn, xf)
		if xn < tol or (xn == tol and xf <= tolf) then
			local yn, yf = tol - xn, tolf - xf
			if yf < 0 then yn, yf = yn - 1, yf + n end
			local k = math.floor((yn + yf / n) / (w / n))
			while true do
				local pq, pf = fdiv(k * tf, n)
				local pn = pq + k * t
				if k > 0 and (pn > yn or (pn == yn and pf > yf)) then
					k = k - 1
				else
					pq, pf = fdiv((k + 1) * tf, n)
					pn = pq + (k + 1) * t
					if pn < yn or (pn == yn and pf <= yf) then k = k + 1 else break end
				end
			end
			return k + 1
		end
		return 0
	end
	if never then return answer(0, remaining(dn, df), NEVER, dn + (df > 0 and 1 or 0), 0) end
	-- debt + (c - 1) * T, a pair below 2^53
	local sn, sf = dn + ln, df + lf
	if sf >= n then sn, sf = sn + 1, sf - n end
	local verdict, retry = 0, 0
	if sn < tol or (sn == tol and sf <= tolf) then
		-- TAT = now + debt + c * T
		verdict, dn, df = 1, sn + t, sf + tf
		if df >= n then dn, df = dn + 1, df - n end
		alo, ahi = words(norm(nh, nl + dn))
		flo = df
	else
		-- the smallest whole d with debt - d + (c - 1) * T <= tau: ceil(that sum - tau)
		local yn, yf = sn - tol, sf - tolf
		if yf < 0 then yn, yf = yn - 1, yf + n end
		retry = yn + (yf > 0 and 1 or 0)
	end
	local reset = dn + (df > 0 and 1 or 0)
	if not tlo then tlo, thi = words(nh, nl) end
	save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0,
		alo, ahi, tlo, thi, flo, 0), fceil(reset, 1000000) + A[5])
	return answer(verdict, remaining(dn, df), retry, reset, 0)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, mul, cmp = X.add, X.sub, X.mul, X.cmp
local divmod, ceil_div, small, ZERO, ONE = X.divmod, X.ceil_div, X.small, X.ZERO, X.ONE
local N, W = X.n, X.w
local tol = X.gcra_of(N, W, X.b)
local debt, now = ZERO, X.now
local tat, frac = ZERO, ZERO
if s then
	debt, now = X.gcra_load(s, N, W, X.b)
	if not debt then return damaged(ALG) end
	tat, frac = X.at(s, 29), X.at(s, 45)
end
-- in 1/N ns: (c - 1) * T = (c - 1) * W, T = W
local lastu = mul(small(costn - 1), W)
local never = cmp(lastu, tol) > 0
local verdict = (not never and cmp(add(debt, lastu), tol) <= 0) and 1 or 0
local body
if verdict == 1 then
	debt = add(debt, add(lastu, W))
	body = X.gcra_put(now, debt, N)
else
	body = X.put(tat) .. X.put(now) .. X.put(frac)
end
local remaining = cmp(debt, tol) <= 0 and add(divmod(sub(tol, debt), W), ONE) or ZERO
local retry = ZERO
if verdict == 0 then
	-- (c - 1) * T > tau never passes; else the smallest whole d with debt - d + (c - 1) * T <= tau
	retry = never and X.INT64_MAX or ceil_div(sub(add(debt, lastu), tol), N)
end
return X.finish(verdict, remaining, retry, ceil_div(debt, N), ZERO, prefix .. body, never)
