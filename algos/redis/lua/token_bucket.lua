-- token_bucket.lua - algos/src/token_bucket.c in Redis: the level (missing
-- tokens times W) kept as "due", the instant it drains to 0 in 1/N ns.
-- A request of cost c is admitted iff level + c * W <= B * W, then
-- level += c * W.
local ALG = 'token_bucket'
local err, level, at = load_level(ALG)
if err then return err end
local bw, take = mul(b, w), mul(w, cost)
local verdict = cmp(add(level, take), bw) <= 0 and 1 or 0
if verdict == 1 then level = add(level, take) end
local retry = ZERO
if verdict == 0 then
	-- c > B never passes; else the smallest d with level - d * N + c * W <= B * W
	retry = cmp(take, bw) > 0 and INT64_MAX or ceil_div(sub(add(level, take), bw), n)
end
return finish(ALG, verdict, divmod(sub(bw, level), w), retry, ceil_div(level, n), ZERO,
	{ 'last', str(now), 'due', str(add(at, level)) }, nil, cmp(cost, b) > 0)
