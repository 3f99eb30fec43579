-- leaky_bucket.lua - algos/src/leaky_bucket.c in Redis: the queue's level
-- times W kept as "due", the instant it drains to 0 in 1/N ns. Admit iff
-- level <= B * W (the wait level / N is at most B slots), then level += W.
local ALG = 'leaky_bucket'
local err, st = load(ALG, { 'last', 'due' })
if err then return err end
local last, due = field(st, 'last'), field(st, 'due')
now = max(now, last)
local at = mul(n, now)
local level = cmp(due, at) > 0 and sub(due, at) or ZERO
local queued = level
local bw = mul(b, w)
local verdict = cmp(level, bw) <= 0 and 1 or 0
if verdict == 1 then level = add(level, w) end
local remaining = cmp(level, bw) <= 0 and add(divmod(sub(bw, level), w), ONE) or ZERO
local retry = verdict == 1 and ZERO or ceil_div(sub(level, bw), n)
local delay = verdict == 1 and ceil_div(queued, n) or ZERO
return finish(ALG, verdict, remaining, retry, ceil_div(level, n), delay,
	{ 'last', str(now), 'due', str(add(at, level)) })
