/*
 * redis_call.h - private: one command through a handle's connection
 * (redis.c), for the commands decided outside redis.c's batches
 * (redis_policy.c's RATELAB.CHECKP or its script, rl_redis_settle's
 * RATELAB.SETTLE or settle.lua): the connection, its
 * budget, the scripts' loading, Redis Cluster routing and SIGPIPE are
 * redis.c's. Not installed.
 */
#ifndef RATELAB_REDIS_CALL_H
#define RATELAB_REDIS_CALL_H

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ratelab/redis.h"

/* rl__redis_call's outcomes. */
enum { RL__REDIS_ANSWERED = 0, RL__REDIS_DOWN = 1, RL__REDIS_NO_SCRIPT = 2 };

/* The most arguments of one command rl__redis_call sends. */
enum { RL__REDIS_CALL_ARGS = 48 };

/*
 * Fills argv (at most RL__REDIS_CALL_ARGS strings of len bytes, argv[*key]
 * the Redis key) with the command, once the connection says which
 * decides: the module's command when module, else the script's EVALSHA
 * with sha (40 hex digits).
 */
typedef void rl__redis_build_fn(void *arg, bool module, const char *sha, int *argc, const char **argv, size_t *len,
				int *key);

/*
 * Sends make's command to its key's server within timeout_ms (1..60000),
 * the script named script (redis_scripts.h) where the server has no module:
 * reloaded once on NOSCRIPT (a node of a cluster gets it as EVAL).
 * RL__REDIS_ANSWERED and *rep (the caller frees it); RL__REDIS_DOWN when
 * Redis could not answer (the failure in rl_redis_error; the caller counts
 * the fallback); RL__REDIS_NO_SCRIPT when no script has that name and the
 * server has no module, nothing sent.
 */
int rl__redis_call(struct rl_redis *r, int64_t timeout_ms, const char *script, rl__redis_build_fn *make, void *arg,
		   redisReply **rep);

/* The handle's key prefix, TTL grace (ms) and command timeout (ms). */
const char *rl__redis_prefix(const struct rl_redis *r);
int64_t rl__redis_grace_ms(const struct rl_redis *r);
int64_t rl__redis_timeout_ms(const struct rl_redis *r);

/* The counters rl_redis_stats reports, for the caller to count in. */
struct rl_redis_stats *rl__redis_counters(struct rl_redis *r);

/* Sets rl_redis_error's message. */
__attribute__((format(printf, 2, 3))) void rl__redis_set_error(struct rl_redis *r, const char *fmt, ...);

#endif
