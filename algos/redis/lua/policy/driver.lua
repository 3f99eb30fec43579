-- policy/driver.lua - a policy (policy.h) in Redis, the scripts' side of
-- the module's RATELAB.CHECKP: embed.cmake makes one script per algorithm,
-- policy_NAME: lib.lua, then the algorithm's one-rule script wrapped as the
-- function rule_script(KEYS, ARGV, redis, CONVERT_ONLY) (with lib.lua once
-- more inside it, so that every rule runs the one-rule script exactly,
-- on a value and a 'redis' of its own), then this text.
--
-- Arguments (lib.lua reads now, grace and cost where the one-rule scripts
-- have them): ARGV[1] the time in ns ('' for Redis's TIME), ARGV[2] the
-- rule count k (1..8), ARGV[3], ARGV[4] '0', ARGV[5] the TTL grace (ms),
-- ARGV[6] the cost, then per rule N, W, B, U (U 1: the rule counts the
-- cost, ':units'; 0: the request as 1), validated by the client as the
-- one-rule scripts' arguments are.
--
-- The value (docs/redis.md, "Policies"; the module's policy_bytes.h):
-- 'r', 'l', 4, 0x81 (a version 3 value read too, its parts as v3 bodies,
-- lib.lua's state()); the algorithm's id, k, the units mask, 0; the key's
-- last seen time (i64); per rule its length (u32) and the body a one-rule
-- value holds after its 4-byte header. Each rule is decided by its
-- one-rule script on that body at the key's clamped time (every rule's own
-- last seen time is at or before it), its SET captured, not made: when
-- every rule admits, the captured bodies are stored; when one refuses,
-- each body stays as it was (converted to the call's rule when that
-- changed, by the one-rule script's state() alone, policy/hook.lua;
-- sliding_log's runs that have left the window at that time dropped), as
-- rl_policy_check keeps them; when a rule can never admit its share, nothing is written.
-- The TTL is the module's: the largest rule's reset_ns in ms, rounded up,
-- plus the grace; not positive: the key is deleted.
-- The reply is the module's: the combined answer and each rule's, five
-- values each, then at_ns, the time every rule decided at.
local key = KEYS[1]
local id = ALGO_IDS[ALG_NAME] -- lib.lua's table, as ID_NAMES below
local k = tonumber(A[2])
if not k or k ~= math.floor(k) then
	return redis.error_reply("ratelab: rule count '" .. tostring(A[2]) .. "' is not an integer in [1, 8]")
end
if k < 1 or k > 8 then return redis.error_reply('ratelab: a policy has 1 to 8 rules (got ' .. A[2] .. ')') end
if #A - 6 ~= 4 * k then
	return redis.error_reply('ratelab: a policy of ' .. k .. ' rules takes ' .. 4 * k ..
		' values after the rule count (N W B U per rule), got ' .. (#A - 6))
end

-- the key's value: absent, a policy of this algorithm and rule count, or an error naming it
local v = redis.pcall('GET', key)
if type(v) == 'table' then
	local t = redis.call('TYPE', key)
	local held = ({ list = 'a list', hash = 'a hash', set = 'a set', zset = 'a sorted set',
		stream = 'a stream' })[t.ok or t] or 'a value of a module type'
	return damaged(nil, 'WRONGTYPE ratelab: key ', ' holds ' .. held .. ', not ratelab state')
end
local parts, lh, ll = {}, 0, 0 -- each rule's body (false: fresh); the key's last seen time
local pver = 4 -- the version of the parts' bodies
if v then
	local m1, m2, ver, got = string.byte(v, 1, 4)
	if #v < 4 or m1 ~= 114 or m2 ~= 108 or (ver ~= 4 and ver ~= 3 and ver ~= 2) then
		return damaged(nil, 'WRONGTYPE ratelab: key ', ' holds a string of ' .. #v .. ' bytes that is not ratelab state')
	end
	if got ~= 129 then
		return damaged(nil, 'ratelab: key ', ' holds ' .. (ID_NAMES[got] or "unknown (a newer ratelab's?)") ..
			' state, not policy')
	end
	if ver == 2 or #v < 16 then return damaged(ALG_NAME) end
	pver = ver
	local aid, count, mask, zero, llo, lhi = struct.unpack('<BBBBI4I4', v, 5)
	-- the module's order: the shape first, then the algorithm and the count
	if count < 1 or count > 8 or mask >= 2 ^ count or zero ~= 0 or not time_ok(llo, lhi) then
		return damaged(ALG_NAME)
	end
	local pos = 17
	for i = 1, count do
		if #v - pos + 1 < 4 then return damaged(ALG_NAME) end
		local len = struct.unpack('<I4', v, pos)
		if len > #v - pos - 3 then return damaged(ALG_NAME) end
		parts[i] = string.sub(v, pos + 4, pos + 3 + len)
		pos = pos + 4 + len
	end
	if pos ~= #v + 1 then return damaged(ALG_NAME) end
	if aid ~= id then
		return damaged(nil, 'ratelab: key ', ' holds ' .. (ID_NAMES[aid] or "unknown (a newer ratelab's?)") ..
			' policy state, not ' .. ALG_NAME)
	end
	if count ~= k then
		return damaged(nil, 'ratelab: key ', ' holds a policy of ' .. count .. ' rules, not ' .. k)
	end
	lh, ll = pair(llo, lhi)
end
-- the time every rule decides at: now, clamped to the key's last seen time
if lh > nh or (lh == nh and ll > nl) then nh, nl = lh, ll end
local at = dec(nh, nl)

-- decimal strings of integers in [0, 2^63) compared
local function less(a, b)
	return #a < #b or (#a == #b and a < b)
end

-- rule i's one-rule value (its body under the one-rule header) and arguments
local function args(i, share)
	local b = 6 + 4 * (i - 1)
	return { at, A[b + 1], A[b + 2], A[b + 3], '1000000000000', share }
end
local function value(i)
	return parts[i] and (struct.pack('<BBBB', 114, 108, pver, id) .. parts[i]) or false
end
-- a 'redis' for one rule: GET answers its value, SET is captured
local function fake(i, out)
	return {
		error_reply = redis.error_reply,
		pcall = function(cmd) if cmd == 'GET' then return value(i) end end,
		call = function(cmd, _, val)
			if cmd == 'SET' then out.value = val elseif cmd == 'DEL' then out.value = false end
		end,
	}
end

local answers, written, verdict, never = {}, {}, 1, false
for i = 1, k do
	local share = A[6 + 4 * i] == '1' and A[6] or '1'
	local out = {}
	local r = rule_script({ key }, args(i, share), fake(i, out), false)
	if r.err then return r end
	answers[i], written[i] = r, out.value
	if r[1] == 0 then
		verdict = 0
		never = never or r[3] == '9223372036854775807'
	end
end

-- the combined answer (policy.h): the least remaining, the largest waits
local all = { verdict, answers[1][2], answers[1][3], answers[1][4], answers[1][5] }
for i = 2, k do
	local a = answers[i]
	if less(a[2], all[2]) then all[2] = a[2] end
	for f = 3, 5 do if less(all[f], a[f]) then all[f] = a[f] end end
end
if verdict == 1 then all[3] = '0' end
local reply = all
for i = 1, k do for f = 1, 5 do reply[#reply + 1] = answers[i][f] end end
reply[#reply + 1] = at -- the time decided at, as RATELAB.CHECKP's last value
if never then return reply end

local bodies = {}
for i = 1, k do
	local b = 6 + 4 * i
	if verdict == 1 then
		bodies[i] = string.sub(written[i], 5)
	else
		-- as it was, converted to a changed rule (fresh: the rule and a zeroed
		-- state), by the one-rule script's state() alone (policy/hook.lua)
		local ok, r = pcall(rule_script, { key }, args(i, '1'), fake(i, {}), true)
		if ok then return r end -- state()'s error reply
		if type(r) ~= 'table' then error(r) end
		local s = string.sub(r.value, 5)
		if id == 114 then
			-- sliding_log: the runs at or before at - W have left the window (rl__sliding_log_expire)
			local wh, wl = split(A[b - 2])
			local h, l = norm(nh - wh, nl - wl)
			if h >= 0 then
				local hlo, hhi = words(h, l)
				local keep = 33
				for pos = 33, #s - 11, 12 do
					local alo, ahi = struct.unpack('<I4I4', s, pos)
					if ahi < hhi or (ahi == hhi and alo <= hlo) then keep = pos + 12 end
				end
				s = string.sub(s, 1, 32) .. string.sub(s, keep)
			end
		end
		bodies[i] = s
	end
end

local mask = 0
for i = 1, k do if A[6 + 4 * i] == '1' then mask = mask + 2 ^ (i - 1) end end
local llo, lhi = words(nh, nl)
local out = { struct.pack('<BBBBBBBBI4I4', 114, 108, 4, 129, id, k, mask, 0, llo, lhi) }
for i = 1, k do out[#out + 1] = struct.pack('<I4', #bodies[i]) .. bodies[i] end
-- TTL: the largest reset_ns in ms, rounded up, plus the grace
local reset = all[4]
local ms = 0
if #reset > 6 then
	ms = tonumber(string.sub(reset, 1, -7)) + (string.sub(reset, -6) ~= '000000' and 1 or 0)
elseif reset ~= '0' then
	ms = 1
end
local ttl = ms + A[5]
if ttl > 0 then
	redis.call('SET', key, table.concat(out), 'PX', ttl)
else
	redis.call('DEL', key)
end
return reply
