/*
 * tier_keys.c - the extra tier keys (registry.h) this ratelab's tier files
 * take: the Redis backend's (redis.h) when it is built in, so that check
 * shows a tier's redis_timeout and replay --redis decides within it; else
 * none, and such a key is an unknown one.
 */
#include "cli.h"

#ifdef RATELAB_HAVE_REDIS
#include "ratelab/redis.h"

size_t cli_tier_keys(const struct rl_tier_key **keys)
{
	return rl_redis_tier_keys(keys);
}

#else

size_t cli_tier_keys(const struct rl_tier_key **keys)
{
	*keys = NULL;
	return 0;
}

#endif
