-- leaky_bucket.lua - algos/src/leaky_bucket.c in Redis: the state is the
-- library's struct rl_level (level.h), stored as the module stores it
-- (lib.lua, state()): the last seen time and the queue's level then (in
-- 1/W request, 96 bits), which drains by N per ns. A request of cost c
-- takes c slots of W / N; it is admitted iff its last unit's wait,
-- (level + (c - 1) * W) / N, is at most B slots and c <= B; then
-- level += c * W. A stored level above (2 * B + 1) * W (a settle's debt
-- cap), or a time out of range, is damaged. Fast track: (B + 1) * W and the level below 2^51.
local ALG = 'leaky_bucket'
local err, s, H, wlo, whi = state(ALG, 61, 24, 0, 'convert_level')
if err then return err end
local b = A[4] + 0

repeat
	local bw = b * w
	if bw + w >= LIMIT then break end
	local tlo, thi, llo, lhi, ltop = 0, 0, 0, 0, 0
	if s then tlo, thi, llo, lhi, ltop = struct.unpack('<I4I4I4I4I4', s, 29) end
	if ltop ~= 0 or lhi >= 524288 then break end -- a level of 2^51 or more: the wide track checks it
	local level = lhi * TWO32 + llo
	if level > bw + bw + w or not time_ok(tlo, thi) then return damaged(ALG) end
	local th, tl = pair(tlo, thi)
	if th > nh or (th == nh and tl > nl) then nh, nl = th, tl else tlo = nil end -- now clamped to last
	local drained = ((nh - th) * E9 + (nl - tl)) * n
	if drained >= level then level = 0 else level = level - drained end
	if costn ~= 1 and costn > b then
		return answer(0, level <= bw and fdiv(bw - level, w) + 1 or 0, NEVER, fceil(level, n), 0)
	end
	local lastu = w * (costn - 1)
	local verdict, retry, delay = 0, 0, 0
	if level + lastu <= bw then
		verdict, delay = 1, fceil(level, n)
		level = level + lastu + w
	else
		retry = fceil(level + lastu - bw, n)
	end
	local reset = fceil(level, n)
	if not tlo then tlo, thi = words(nh, nl) end
	lhi = math.floor(level / TWO32)
	save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0,
		tlo, thi, level - lhi * TWO32, lhi, 0, 0), fceil(reset, 1000000) + A[5])
	return answer(verdict, level <= bw and fdiv(bw - level, w) + 1 or 0, retry, reset, delay)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, mul, cmp, divmod, ceil_div = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div
local ZERO, ONE = X.ZERO, X.ONE
local level, now = X.load_level(s, 29, X.n, X.w, X.b, true)
if not level then return damaged(ALG) end
local queued = level
local bw = mul(X.b, X.w)
local lastu = mul(X.w, X.small(costn - 1))
local fits = costn == 1 or cmp(X.cost, X.b) <= 0
local verdict = (cmp(add(level, lastu), bw) <= 0 and fits) and 1 or 0
if verdict == 1 then level = add(level, add(lastu, X.w)) end
local remaining = cmp(level, bw) <= 0 and add(divmod(sub(bw, level), X.w), ONE) or ZERO
local retry = ZERO
if verdict == 0 then
	retry = not fits and X.INT64_MAX or ceil_div(sub(add(level, lastu), bw), X.n)
end
local delay = verdict == 1 and ceil_div(queued, X.n) or ZERO
return X.finish(verdict, remaining, retry, ceil_div(level, X.n), delay,
	prefix .. X.put(now) .. X.put_level(level) .. '\0\0\0\0', not fits)
