-- token_bucket.lua - algos/src/token_bucket.c in Redis: the level (missing
-- tokens times W) kept as "due", the instant it drains to 0 in 1/N ns.
-- A request of cost c is admitted iff level + c * W <= B * W, then
-- level += c * W. Fast track: B * W below 2^51, the level within it.
local ALG = 'token_bucket'
local err, v = read(ALG, 'last', 'due')
if err then return err end
local b = A[4] + 0

repeat
	local bw = b * w
	if bw >= LIMIT then break end
	local clamped = clamp(v[2])
	-- N * now as the pair (ah, al), al not carried: level = due - N * now
	local dh, dl = split(v[3])
	local ah, al = n * nh, n * nl
	local level = (dh - ah) * E9 + (dl - al)
	if level < 0 then level = 0 elseif level > bw then break end
	local take = w * costn -- rounded only when above 2^53, and then still above B * W
	if take > bw then
		return answer(0, fdiv(bw - level, w), NEVER, fceil(level, n), 0)
	end
	local verdict, retry = 0, 0
	if level + take <= bw then
		verdict, level = 1, level + take
	else
		retry = fceil(level + take - bw, n)
	end
	local reset = fceil(level, n)
	store(v[1] and true or ALG, reset, 'last', clamped and v[2] or now_s or dec(nh, nl), 'due', dec(norm(ah, al + level)))
	return answer(verdict, fdiv(bw - level, w), retry, reset, 0)
until true

local X = wide({ 'last', 'due' }, v, nh, nl, costn)
local add, sub, mul, cmp, divmod, ceil_div, str = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div, X.str
local level, at, now = X.load_level()
local bw, take = mul(X.b, X.w), mul(X.w, X.cost)
local verdict = cmp(add(level, take), bw) <= 0 and 1 or 0
if verdict == 1 then level = add(level, take) end
local retry = X.ZERO
if verdict == 0 then
	-- c > B never passes; else the smallest d with level - d * N + c * W <= B * W
	retry = cmp(take, bw) > 0 and X.INT64_MAX or ceil_div(sub(add(level, take), bw), X.n)
end
return X.finish(ALG, verdict, divmod(sub(bw, level), X.w), retry, ceil_div(level, X.n), X.ZERO,
	{ 'last', str(now), 'due', str(add(at, level)) }, nil, cmp(X.cost, X.b) > 0)
