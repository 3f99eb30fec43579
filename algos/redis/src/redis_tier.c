/*
 * redis_tier.c - the backend's settings of a tier (redis.h, "Tiers"): its
 * extra tier keys, parsed here so that the core's loader (registry.h)
 * knows no backend, and read back by their place in the table.
 */
#include <stdio.h>

#include "ratelab/parse.h"
#include "ratelab/redis.h"

enum { NS_PER_MS = 1000000 };

/* The places of the keys in the table. */
enum { KEY_TIMEOUT, KEY_COUNT };

/* redis_timeout: whole ms in [1ms, 60s] (rl_redis_rule's timeout_ms), a bare number in ms. */
static int parse_timeout(const struct rl_tier_key *key, const char *value, int64_t *out, char *msg,
			 size_t msg_len)
{
	int64_t ns;

	if (!rl_parse_duration(value, NS_PER_MS, &ns) || ns < NS_PER_MS || ns > 60000LL * NS_PER_MS ||
	    ns % NS_PER_MS) {
		snprintf(msg, msg_len, "%s '%s' is not a whole number of ms in [1ms, 60s] (bare: ms)", key->name,
			 value);
		return RL_EINVAL;
	}
	*out = ns / NS_PER_MS;
	return RL_OK;
}

static const struct rl_tier_key keys[KEY_COUNT] = {
	[KEY_TIMEOUT] = { "redis_timeout", "redis_timeout_ms", parse_timeout },
};

size_t rl_redis_tier_keys(const struct rl_tier_key **out)
{
	*out = keys;
	return KEY_COUNT;
}

int64_t rl_redis_tier_timeout_ms(const struct rl_tier *t, size_t base)
{
	int64_t ms;

	rl_tier_ext(t, base + KEY_TIMEOUT, &ms);
	return ms;
}
