/*
 * policy_bytes.c - a policy's state as bytes (policy_bytes.h): the header
 * written and checked here, each rule's part by state_bytes.c.
 */
#include "policy_bytes.h"

#include <string.h>

#include "state_bytes.h"

int rlm_policy_split(const unsigned char *body, size_t len, struct rlm_policy_value *v)
{
	size_t at = RLM_POLICY_HEAD;

	if (len < RLM_POLICY_HEAD)
		return -1;
	v->algo_id = body[0];
	v->count = body[1];
	v->units = body[2];
	memcpy(&v->last_ns, body + 4, 8);
	if (v->count < 1 || v->count > RL_POLICY_MAX_RULES || (v->units >> v->count) != 0 || body[3] != 0 ||
	    v->last_ns < 0 || v->last_ns > RL_TIME_MAX_NS)
		return -1;
	for (size_t i = 0; i < v->count; i++) {
		uint32_t part;
		if (len - at < RLM_POLICY_PART_LEN)
			return -1;
		memcpy(&part, body + at, 4);
		at += RLM_POLICY_PART_LEN;
		if (part > len - at)
			return -1;
		v->part[i] = body + at;
		v->part_len[i] = part;
		at += part;
	}
	return at == len ? 0 : -1;
}

size_t rlm_policy_len(const struct rl_policy_limiter *pl, void *state)
{
	size_t len = RLM_POLICY_HEAD;

	for (size_t i = 0; i < pl->count; i++)
		len += RLM_POLICY_PART_LEN + RLM_RULE +
		       rlm_state_len(pl->rules[i].algo, rl_policy_rule_state(pl, state, i));
	return len;
}

void rlm_policy_put(const struct rl_policy_limiter *pl, void *state, int algo_id, unsigned char *out)
{
	int64_t last = rl_policy_state_last_ns(state);
	unsigned units = 0;

	for (size_t i = 0; i < pl->count; i++)
		units |= pl->units[i] ? 1u << i : 0;
	out[0] = (unsigned char)algo_id;
	out[1] = (unsigned char)pl->count;
	out[2] = (unsigned char)units;
	out[3] = 0;
	memcpy(out + 4, &last, 8);
	out += RLM_POLICY_HEAD;
	for (size_t i = 0; i < pl->count; i++) {
		const struct rl_algo *algo = pl->rules[i].algo;
		void *st = rl_policy_rule_state(pl, state, i);
		uint32_t part = (uint32_t)(RLM_RULE + rlm_state_len(algo, st));
		memcpy(out, &part, 4);
		rlm_rule_put(&pl->rules[i].rule, out + RLM_POLICY_PART_LEN);
		rlm_state_put(algo, st, out + RLM_POLICY_PART_LEN + RLM_RULE);
		out += RLM_POLICY_PART_LEN + part;
	}
}
