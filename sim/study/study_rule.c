/*
 * study_rule.c - a study's rule text ("N/W" or "N/W:bB", parse.h's integer
 * and duration syntax, validated by rl_rule_validate) and the shard hash
 * (study.h): 64-bit FNV-1a of the key's bytes.
 */
#include "study.h"

#include <stdlib.h>
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

static bool digits_only(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

bool sim_study_rule_parse(const char *text, struct sim_study_rule *out, char *msg, size_t msg_len)
{
	char buf[SIM_STUDY_RULE_MAX];
	size_t len = strlen(text);

	memset(out, 0, sizeof(*out));
	if (len == 0 || len >= sizeof(buf)) {
		snprintf(msg, msg_len, "not a rule N/W[:bB] (e.g. 10/1s, 60/1m:b120)%s", len ? ": too long" : "");
		return false;
	}
	memcpy(buf, text, len + 1);
	char *slash = strchr(buf, '/'), *colon = strchr(buf, ':');
	if (!slash || (colon && colon < slash)) {
		snprintf(msg, msg_len, "not a rule N/W[:bB] (e.g. 10/1s, 60/1m:b120)");
		return false;
	}
	*slash = '\0';
	if (colon)
		*colon = '\0';
	const char *n = buf, *w = slash + 1, *b = colon ? colon + 1 : NULL;
	struct rl_rule r = { 0 };
	if (!digits_only(n) || !rl_parse_i64(n, &r.limit)) {
		snprintf(msg, msg_len, "the limit N is not an integer (N/W[:bB], e.g. 10/1s)");
		return false;
	}
	if (!rl_parse_duration(w, 0, &r.window_ns)) {
		snprintf(msg, msg_len, "the window W is not a duration (an integer with unit ns, us, "
			 "ms, s, m or h, e.g. 1s)");
		return false;
	}
	r.burst = r.limit;
	if (b && (b[0] != 'b' || !digits_only(b + 1) || !rl_parse_i64(b + 1, &r.burst))) {
		snprintf(msg, msg_len, "the burst is not b followed by an integer (e.g. 60/1m:b120)");
		return false;
	}
	char why[160];
	if (rl_rule_validate(&r, why, sizeof(why)) != RL_OK) {
		snprintf(msg, msg_len, "%s", why);
		return false;
	}
	memcpy(out->text, text, len + 1);
	out->rule = r;
	return true;
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
