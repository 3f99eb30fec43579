-- leaky_bucket.lua - algos/src/leaky_bucket.c in Redis: the queue's level
-- times W kept as "due", the instant it drains to 0 in 1/N ns. A request of
-- cost c takes c slots of W / N; it is admitted iff its last unit's wait,
-- (level + (c - 1) * W) / N, is at most B slots and c <= B; then
-- level += c * W.
local ALG = 'leaky_bucket'
local err, level, at = load_level(ALG)
if err then return err end
local queued = level
local bw = mul(b, w)
local lastu = mul(w, small(costn - 1))
local fits = costn == 1 or cmp(cost, b) <= 0
local verdict = (cmp(add(level, lastu), bw) <= 0 and fits) and 1 or 0
if verdict == 1 then level = add(level, add(lastu, w)) end
local remaining = cmp(level, bw) <= 0 and add(divmod(sub(bw, level), w), ONE) or ZERO
local retry = ZERO
if verdict == 0 then
	retry = not fits and INT64_MAX or ceil_div(sub(add(level, lastu), bw), n)
end
local delay = verdict == 1 and ceil_div(queued, n) or ZERO
return finish(ALG, verdict, remaining, retry, ceil_div(level, n), delay,
	{ 'last', str(now), 'due', str(add(at, level)) }, nil, not fits)
