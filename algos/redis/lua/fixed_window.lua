-- fixed_window.lua - algos/src/fixed_window.c in Redis: windows
-- [kW, (k+1)W); a request of cost c is admitted iff the units admitted in
-- t's window plus c are at most N. The state is the library's struct
-- rl_fixed_window {last_ns, end_ns, count}, stored as the module stores it
-- (lib.lua, state()); an end that is not a multiple of W in (last,
-- last + W], a count above N or a time out of range is damaged. Fast
-- track: the window's end within 2^51 ns of now, and W below 9 * 10^12.
local ALG = 'fixed_window'
local err, s, H, wlo, whi = state(ALG, 88, 24, 0, 'convert_fixed')
if err then return err end
local limit = n

repeat
	local llo, lhi, elo, ehi, count = 0, 0, 0, 0, 0
	local eh, el = 0, 0
	if s then
		llo, lhi, elo, ehi, count = struct.unpack('<I4I4I4I4I4', s, 29)
		local lh, ll = pair(llo, lhi)
		eh, el = pair(elo, ehi)
		local r = tmod(eh, el, w)
		if not r then break end
		local span = (eh - lh) * E9 + (el - ll)
		if r ~= 0 or span <= 0 or span > w or count > limit or not time_ok(llo, lhi) then return damaged(ALG) end
		if lh > nh or (lh == nh and ll > nl) then nh, nl = lh, ll else llo = nil end -- now clamped to last
	else
		llo = nil
	end
	local renewed = false
	if not (eh > nh or (eh == nh and el > nl)) then
		local r = tmod(nh, nl, w)
		if not r then break end
		eh, el = norm(nh, nl - r + w)
		count, renewed = 0, true
	end
	local to_end = (eh - nh) * E9 + (el - nl)
	if to_end >= LIMIT then break end
	local remaining = limit - count
	if costn > limit then
		return answer(0, remaining > 0 and remaining or 0, NEVER, count > 0 and to_end or 0, 0)
	end
	local verdict, retry = 0, to_end
	if costn <= remaining then verdict, retry, count = 1, 0, count + costn end
	local reset = count > 0 and to_end or 0
	if not llo then llo, lhi = words(nh, nl) end
	if renewed then elo, ehi = words(eh, el) end
	save(struct.pack('<I4I4I4I4I4I4I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0,
		llo, lhi, elo, ehi, count, 0), fceil(reset, 1000000) + A[5])
	remaining = limit - count
	return answer(verdict, remaining > 0 and remaining or 0, retry, reset, 0)
until true

local X = wide(nh, nl, costn)
local prefix = struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0)
local add, sub, cmp, divmod, ZERO = X.add, X.sub, X.cmp, X.divmod, X.ZERO
local last, wend, count = ZERO, ZERO, 0
if s then
	last, wend, count = X.at(s, 29), X.at(s, 37), struct.unpack('<I4', s, 45)
	if not X.window_ok(last, wend, X.w) or count > limit then return damaged(ALG) end
end
local now = X.max(X.now, last)
if cmp(now, wend) >= 0 then
	local _, r = divmod(now, X.w)
	wend = add(sub(now, r), X.w)
	count = 0
end
local verdict = count + costn <= limit and 1 or 0
if verdict == 1 then count = count + costn end
local to_end = sub(wend, now)
local retry = ZERO
if verdict == 0 then retry = costn > limit and X.INT64_MAX or to_end end
return X.finish(verdict, X.small(limit - count), retry, count > 0 and to_end or ZERO, ZERO,
	prefix .. X.put(now) .. X.put(wend) .. struct.pack('<I4I4', count, 0), costn > limit)
