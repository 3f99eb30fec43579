-- breaker.lua - algos/src/breaker.c in Redis: ARGV[2..4] are limit, window
-- and open time (the caller's unit, like the times), ARGV[6] 'handle' or
-- 'state'. CLOSED counts the admitted times in (now - window, now] and
-- opens on the request that would exceed limit; OPEN rejects until open
-- time has passed, then HALF_OPEN admits one probe and closes with a
-- window holding only it. Answers {rc, state before}: rc 1 admitted, 0
-- rejected or (state) done, -4 a time before the last one (RL_EORDER).
-- The state is stored as the module stores it (lib.lua, state(); no
-- rule): last (8), opened_at (8), state (4), then one 12-byte run per
-- distinct admitted time of the CLOSED window, oldest first: at (8),
-- count (4). A time out of range, opened_at after last, an unknown state,
-- or runs out of order, of no count or after last are damaged. The key
-- lives for the grace (ms; 0: no expiry), since the breaker's unit of
-- time is the caller's. Times are compared as their u32 words.
local CLOSED, OPEN, HALF_OPEN = 0, 1, 2
local err, s, H = state('breaker', 128, 20, 12)
if err then return err end
local llo, lhi, olo, ohi, st = 0, 0, 0, 0, CLOSED
local stop = 25 -- the end of the runs
if s then
	llo, lhi, olo, ohi, st = struct.unpack('<I4I4I4I4I4', s, 5)
	stop = #s + 1
	if not time_ok(llo, lhi) or ohi > lhi or (ohi == lhi and olo > llo) or st > HALF_OPEN then
		return damaged('breaker')
	end
end
local total, plo, phi = 0, -1, -1
for pos = 25, stop - 12, 12 do
	local alo, ahi, c = struct.unpack('<I4I4I4', s, pos)
	if c < 1 or ahi < phi or (ahi == phi and alo <= plo) then return damaged('breaker') end
	total, plo, phi = total + c, alo, ahi
end
if total >= TWO32 or phi > lhi or (phi == lhi and plo > llo) then return damaged('breaker') end
local lh, ll = pair(llo, lhi)
if lh > nh or (lh == nh and ll > nl) then return { -4, st } end
local oh, ol = pair(olo, ohi)
local fh, fl = split(A[4])
if st == OPEN and (nh - oh - fh) * E9 + (nl - ol - fl) >= 0 then st = HALF_OPEN end
local before, rc = st, 0
local nlo, nhi = words(nh, nl)
local runs = s and string.sub(s, 25) or ''

-- one more admitted at now: the newest run's count, or a new run
local function push()
	if total > 0 and plo == nlo and phi == nhi then
		runs = string.sub(runs, 1, -5) .. struct.pack('<I4', struct.unpack('<I4', runs, #runs - 3) + 1)
	else
		runs = runs .. struct.pack('<I4I4I4', nlo, nhi, 1)
	end
	total = total + 1
end

if ARGV[6] == 'handle' then
	if st == HALF_OPEN then
		push()
		st, rc = CLOSED, 1
	elseif st == CLOSED then
		local wh, wl = split(A[3])
		local h, l = norm(nh - wh, nl - wl)
		if h >= 0 and total > 0 then -- the runs at or before now - window leave
			local hlo, hhi = words(h, l)
			local first = 1
			while first < #runs do
				local alo, ahi, c = struct.unpack('<I4I4I4', runs, first)
				if ahi > hhi or (ahi == hhi and alo > hlo) then break end
				first, total = first + 12, total - c
			end
			runs = string.sub(runs, first)
		end
		if total < n then
			push()
			rc = 1
		else
			st, olo, ohi, total, runs = OPEN, nlo, nhi, 0, ''
		end
	end
end
local value = struct.pack('<I4I4I4I4I4I4', H, nlo, nhi, olo, ohi, st) .. runs
local grace = ARGV[5] + 0
if grace > 0 then redis.call('SET', KEYS[1], value, 'PX', grace) else redis.call('SET', KEYS[1], value) end
return { rc, before }
