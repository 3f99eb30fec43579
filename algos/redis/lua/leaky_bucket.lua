-- leaky_bucket.lua - algos/src/leaky_bucket.c in Redis: the queue's level
-- times W kept as "due", the instant it drains to 0 in 1/N ns. A request of
-- cost c takes c slots of W / N; it is admitted iff its last unit's wait,
-- (level + (c - 1) * W) / N, is at most B slots and c <= B; then
-- level += c * W. Fast track: (B + 1) * W and the level below 2^51.
local ALG = 'leaky_bucket'
local err, v = read(ALG, 'last', 'due')
if err then return err end
local b = A[4] + 0

repeat
	local bw = b * w
	if bw + w >= LIMIT then break end
	local clamped = clamp(v[2])
	local dh, dl = split(v[3])
	local ah, al = n * nh, n * nl
	local level = (dh - ah) * E9 + (dl - al)
	if level < 0 then level = 0 elseif level >= LIMIT then break end
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
	store(v[1] and true or ALG, reset, 'last', clamped and v[2] or now_s or dec(nh, nl), 'due', dec(norm(ah, al + level)))
	return answer(verdict, level <= bw and fdiv(bw - level, w) + 1 or 0, retry, reset, delay)
until true

local X = wide({ 'last', 'due' }, v, nh, nl, costn)
local add, sub, mul, cmp, divmod, ceil_div, str = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div, X.str
local ZERO, ONE = X.ZERO, X.ONE
local level, at, now = X.load_level()
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
return X.finish(ALG, verdict, remaining, retry, ceil_div(level, X.n), delay,
	{ 'last', str(now), 'due', str(add(at, level)) }, nil, not fits)
