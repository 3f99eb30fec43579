/*
 * study_rule.c - a study's rule (its text read by rl_rule_parse, kept as
 * given for the report) and the shard hash
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
	if (rl_rule_parse(text, &out->rule, msg, msg_len) != RL_OK)
		return false;
	if (len >= sizeof(out->text)) {
		char q[RL_QUOTE_SIZE];
		snprintf(msg, msg_len, "%s is longer than %zu bytes", rl_quote(q, text), sizeof(out->text) - 1);
		return false;
	}
	memcpy(out->text, text, len + 1);
	return true;
}
