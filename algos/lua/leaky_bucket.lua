-- leaky_bucket.lua - algos/src/leaky_bucket.c in Redis: the queue's level
-- times W kept as "due", the instant it drains to 0 in 1/N ns. A request of
-- cost c takes c slots of W / N; it is admitted iff its last unit's wait,
-- (level + (c - 1) * W) / N, is at most B slots and c <= B; then
-- level += c * W. Fast track: (B + 1) * W and the level below 2^51.
local ALG = 'leaky_bucket'
local err, v = read(ALG, 'last', 'due')
if err then return err end

local function slow()
	local X = wide({ 'last', 'due' }, v)
	local add, sub, mul, cmp, divmod, ceil_div, str = X.add, X.sub, X.mul, X.cmp, X.divmod, X.ceil_div, X.str
	local ZERO, ONE = X.ZERO, X.ONE
	local level, at, now = X.load_level()
	local n, w, b, cost = X.n, X.w, X.b, X.cost
	local queued = level
	local bw = mul(b, w)
	local lastu = mul(w, X.small(costn - 1))
	local fits = costn == 1 or cmp(cost, b) <= 0
	local verdict = (cmp(add(level, lastu), bw) <= 0 and fits) and 1 or 0
	if verdict == 1 then level = add(level, add(lastu, w)) end
	local remaining = cmp(level, bw) <= 0 and add(divmod(sub(bw, level), w), ONE) or ZERO
	local retry = ZERO
	if verdict == 0 then
		retry = not fits and X.INT64_MAX or ceil_div(sub(add(level, lastu), bw), n)
	end
	local delay = verdict == 1 and ceil_div(queued, n) or ZERO
	return X.finish(ALG, verdict, remaining, retry, ceil_div(level, n), delay,
		{ 'last', str(now), 'due', str(add(at, level)) }, nil, not fits)
end

local bw = b * w
if bw + w >= LIMIT then return slow() end
local lh, ll = split(v[2])
local clamped = later(lh, ll, nh, nl)
if clamped then nh, nl = lh, ll end
local dh, dl = split(v[3])
local ah, al = n * nh, n * nl
local level = diff(dh, dl, ah, al)
if level < 0 then level = 0 elseif level >= LIMIT then return slow() end
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
store(ALG, reset, 'last', now_string(clamped, v[2]), 'due', dec(norm(ah, al + level)))
return answer(verdict, level <= bw and fdiv(bw - level, w) + 1 or 0, retry, reset, delay)
