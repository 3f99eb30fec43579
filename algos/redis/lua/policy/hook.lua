-- policy/hook.lua - placed by embed.cmake inside rule_script, after lib.lua
-- and before the algorithm's one-rule script (policy/driver.lua): with
-- CONVERT_ONLY, the script's state() hands back the value it would decide
-- on, without deciding: the stored one converted to this call's rule (or
-- as it is under the same rule), or for an absent key the header, the rule
-- and a zeroed state of the algorithm's fixed bytes, as the script would
-- write it; raised as error({ value = ... }) for the driver's pcall.
if CONVERT_ONLY then
	local state0 = state
	state = function(alg, id, fixed, run, convert)
		local e, s, H, wlo, whi = state0(alg, id, fixed, run, convert)
		if e then return e end
		error({ value = s or (struct.pack('<I4I4I4I4I4I4I4', H, n, 0, wlo, whi, burst, 0) ..
			string.rep('\0', fixed)) })
	end
end
