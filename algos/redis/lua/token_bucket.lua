-- token_bucket.lua - algos/src/token_bucket.c in Redis: the state is the
-- library's struct rl_level (level.h), stored as the module stores it
-- (lib.lua, state()): the last seen time and the level then (missing
-- tokens in 1/W request, 96 bits), which drains by N per ns. A request of
-- cost c is admitted iff level + c * W <= B * W, then level += c * W.
-- A stored level above 2 * B * W (more than B tokens owed: a settle's
-- debt cap), or a time out of range, is damaged.
-- Fast track: B * W below 2^51, the level within it.
local ALG = 'token_bucket'
local err, s, H, wlo, whi = state(ALG, 5, 24, 0, 'convert_level')
if err then return err end
local b = A[4] + 0

repeat
	local bw = b * w
	if bw >= LIMIT then break end
	local tlo, thi, llo, lhi, ltop = 0, 0, 0, 0, 0
	if s then tlo, thi, llo, lhi, ltop = struct.unpack('<I4I4I4I4I4', s, 29) end
	if ltop ~= 0 or lhi >= 524288 then break end -- a level of 2^51 or more: the wide track checks it
	local level = lhi * TWO32 + llo
	if level > bw + bw or not time_ok(tlo, thi) then return damaged(ALG) end
	local th, tl = pair(tlo, thi)
	if th > nh or (th == nh and tl > nl) then nh, nl = th, tl else tlo = nil end -- now clamped to last
	-- the ns since last: exact below 2^53, else more than any level takes to drain
	local drained = ((nh - th) * E9 + (nl - tl)) * n
	if drained >= level then level = 0 else level = level - drained end
	local take = w * costn -- rounded only when above 2^53, and then still above B * W
	if take > bw then
		return answer(0, level < bw and fdiv(bw - level, w) or 0, NEVER, fceil(level, n), 0)
	end
	local verdict, retry = 0, 0
	if level + take <= bw then
		verdict, level = 1, level + take
	else
		retry = fceil(level + take - bw, n)
	end
	local reset = fceil(level, n)
	if not tlo then tlo, thi = words(nh, nl) end
	lhi = math.floor(level / TWO32)
	save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, b, 0,
		tlo, thi, level - lhi * TWO32, lhi, 0, 0), fceil(reset, 1000000) + A[5])
	return answer(verdict, level < bw and fdiv(bw - level, w) or 0, retry, reset, 0)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, mul, cmp, divmod, ceil_div = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div
local level, now = X.load_level(s, 29, X.n, X.w, X.b, false)
if not level then return damaged(ALG) end
local bw, take = mul(X.b, X.w), mul(X.w, X.cost)
local verdict = cmp(add(level, take), bw) <= 0 and 1 or 0
if verdict == 1 then level = add(level, take) end
local retry = X.ZERO
if verdict == 0 then
	-- c > B never passes; else the smallest d with level - d * N + c * W <= B * W
	retry = cmp(take, bw) > 0 and X.INT64_MAX or ceil_div(sub(add(level, take), bw), X.n)
end
return X.finish(verdict, cmp(level, bw) < 0 and divmod(sub(bw, level), X.w) or X.ZERO, retry, ceil_div(level, X.n), X.ZERO,
	prefix .. X.put(now) .. X.put_level(level) .. '\0\0\0\0', cmp(X.cost, X.b) > 0)
