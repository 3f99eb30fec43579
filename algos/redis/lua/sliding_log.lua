-- sliding_log.lua - algos/src/sliding_log.c in Redis: a request of cost c
-- is admitted iff the units admitted at times x with t - W < x <= t, plus
-- c, are at most N. The state is the library's, stored as the module
-- stores it (lib.lua, state()): the last seen time, then one 12-byte run
-- per distinct admitted time, oldest first: at_ns (8), units (4). Runs
-- out of order, of no units, after the last seen time, at or before
-- last - W, or holding more than 2 * RL_LIMIT_MAX units in all (a settle's debt), or a time out
-- of range, are damaged. A state written under another rule keeps its
-- runs but for those at or before now - min(W0, W1) (lib.lua,
-- convert_log): under a lower N they may hold more than N units, and the
-- check admits nothing (remaining 0) until enough leave.
-- Times are compared as their u32 words, and differences taken as pairs
-- (lib.lua), exact for every W: one track.
local ALG = 'sliding_log'
local err, s, H, wlo, whi = state(ALG, 114, 8, 12, 'convert_log')
if err then return err end
local limit = n
-- a cost above N is never admitted and changes nothing: its expiry is not stored
local frozen = costn > limit
local wh, wl = split(A[3])

-- times as (lo, hi) u32 words: the later has the greater hi, or lo
local llo, lhi = 0, 0
local first, stop = 37, 37 -- the byte of the oldest live run, and the end of the runs
if s then
	llo, lhi = struct.unpack('<I4I4', s, 29)
	stop = #s + 1
	if not time_ok(llo, lhi) then return damaged(ALG) end
end
local lh, ll = pair(llo, lhi)
local clamped = lh > nh or (lh == nh and ll > nl)
if clamped then nh, nl = lh, ll end
local nlo, nhi = llo, lhi
if not clamped then nlo, nhi = words(nh, nl) end
-- the horizons now - W and last - W as words (hi -1: before 0, none)
local hlo, hhi, vlo, vhi = 0, -1, 0, -1
do
	local h, l = norm(nh - wh, nl - wl)
	if h >= 0 then hlo, hhi = words(h, l) end
	h, l = norm(lh - wh, ll - wl)
	if h >= 0 then vlo, vhi = words(h, l) end
end

-- one pass: every run checked, those at or before now - W skipped
local total, all, plo, phi = 0, 0, -1, -1
for pos = 37, stop - 12, 12 do
	local alo, ahi, c = struct.unpack('<I4I4I4', s, pos)
	if c < 1 or ahi < phi or (ahi == phi and alo <= plo) then return damaged(ALG) end
	if ahi < hhi or (ahi == hhi and alo <= hlo) then
		first = pos + 12
	else
		total = total + c
	end
	all, plo, phi = all + c, alo, ahi
end
-- the newest run at most last, at most RL_LIMIT_MAX units in all (a log
-- converted to a lower N keeps its runs: more than N until they leave);
-- the oldest after last - W (a converted log's too: the conversion drops
-- the runs at or before now - min(W0, W1) and makes now its last)
if phi > lhi or (phi == lhi and plo > llo) or all > 2000000 then return damaged(ALG) end
if stop > 37 then
	local olo, ohi = struct.unpack('<I4I4', s, 37)
	if ohi < vhi or (ohi == vhi and olo <= vlo) then return damaged(ALG) end
end

-- (at + W - now) for a run at byte pos, as a pair
local function left(pos)
	local alo, ahi = struct.unpack('<I4I4', s, pos)
	local h, l = pair(alo, ahi)
	return norm(h + wh - nh, l + wl - nl)
end

local verdict, retry_s, reset_h, reset_l = 0, '0', 0, 0
local runs = s and string.sub(s, first, stop - 1) or ''
if total + costn <= limit then
	verdict = 1
	-- the newest run is at most last, so it is at now only if it is at last and now is last
	if total > 0 and plo == nlo and phi == nhi then
		runs = string.sub(runs, 1, -5) .. struct.pack('<I4', struct.unpack('<I4', s, stop - 4) + costn)
	else
		runs = runs .. struct.pack('<I4I4I4', nlo, nhi, costn)
	end
	total = total + costn
elseif frozen then
	retry_s = '9223372036854775807'
else
	-- the oldest run whose expiry leaves room for c
	local rest = total
	for pos = first, stop - 12, 12 do
		rest = rest - struct.unpack('<I4', s, pos + 8)
		if rest + costn <= limit then
			retry_s = dec(left(pos))
			break
		end
	end
end
if total > 0 then
	if verdict == 1 then reset_h, reset_l = wh, wl else reset_h, reset_l = left(stop - 12) end
end
local remaining = limit - total
if remaining < 0 then remaining = 0 end
if not frozen then
	-- the TTL: reset rounded up to ms, plus the grace
	local ttl = reset_h * 1000 + fceil(reset_l, 1000000) + ARGV[5]
	save(struct.pack('<I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0, nlo, nhi) .. runs, ttl)
end
return { verdict, string.format('%d', remaining), verdict == 1 and '0' or retry_s, dec(reset_h, reset_l), '0' }
