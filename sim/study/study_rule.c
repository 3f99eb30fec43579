/*
 * study_rule.c - a study's rule or policy (its text read by rl_rule_parse
 * or rl_policy_parse, kept as given for the report) and the shard hash
 * (study.h): 64-bit FNV-1a of the key's bytes.
 */
#include "study.h"

#include <stdio.h>
#include <string.h>

#include "ratelab/parse.h"

uint64_t sim_study_key_hash(const char *key, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ULL;
	}
	return h;
}

bool sim_study_rule_parse(const char *text, struct sim_study_rule *out, char *msg, size_t msg_len)
{
	size_t len = strlen(text);

	memset(out, 0, sizeof(*out));
	out->is_policy = strchr(text, '+') || strstr(text, ":units");
	if (out->is_policy) {
		if (rl_policy_parse(text, &out->policy, msg, msg_len) != RL_OK)
			return false;
		out->rule = out->policy.rules[0];
	} else {
		if (rl_rule_parse(text, &out->rule, msg, msg_len) != RL_OK)
			return false;
		out->policy.count = 1;
		out->policy.rules[0] = out->rule;
		out->policy.units[0] = true; /* a study's rule counts units */
	}
	if (len >= sizeof(out->text)) {
		char q[RL_QUOTE_SIZE];
		snprintf(msg, msg_len, "%s is longer than %zu bytes", rl_quote(q, text), sizeof(out->text) - 1);
		return false;
	}
	memcpy(out->text, text, len + 1);
	return true;
}

struct rl_policy sim_study_rule_policy(const struct sim_study_rule *r)
{
	struct rl_policy p = { .count = 1 };

	if (r->policy.count)
		return r->policy;
	p.rules[0] = r->rule;
	p.units[0] = true;
	return p;
}

bool sim_study_target_parse(const char *text, uint32_t *target)
{
	size_t len = strlen(text), whole = strspn(text, "0123456789"), frac = 0;
	uint32_t v = 0;

	if (len < 2 || text[len - 1] != '%' || whole == 0 || whole > 3)
		return false;
	for (size_t i = 0; i < whole; i++)
		v = v * 10 + (uint32_t)(text[i] - '0');
	v *= 100;
	if (text[whole] == '.') {
		frac = strspn(text + whole + 1, "0123456789");
		if (frac < 1 || frac > 2)
			return false;
		v += (uint32_t)(text[whole + 1] - '0') * 10 + (frac == 2 ? (uint32_t)(text[whole + 2] - '0') : 0);
		frac++;
	}
	if (whole + frac + 1 != len || v < 1 || v > 10000)
		return false;
	*target = v;
	return true;
}
