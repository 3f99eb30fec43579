-- token_bucket.lua - algos/src/token_bucket.c in Redis: the level (missing
-- tokens times W) kept as "due", the instant it drains to 0 in 1/N ns.
-- Admit iff level + W <= B * W, then level += W.
local ALG = 'token_bucket'
local err, st = load(ALG, { 'last', 'due' })
if err then return err end
local last, due = field(st, 'last'), field(st, 'due')
now = max(now, last)
local at = mul(n, now)
local level = cmp(due, at) > 0 and sub(due, at) or ZERO
local bw = mul(b, w)
local verdict = cmp(add(level, w), bw) <= 0 and 1 or 0
if verdict == 1 then level = add(level, w) end
local retry = verdict == 1 and ZERO or ceil_div(sub(add(level, w), bw), n)
return finish(ALG, verdict, divmod(sub(bw, level), w), retry, ceil_div(level, n), ZERO,
	{ 'last', str(now), 'due', str(add(at, level)) })
