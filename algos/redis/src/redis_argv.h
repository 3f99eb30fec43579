/*
 * redis_argv.h - private: the EVALSHA command the Redis backend sends for
 * one request, built without the network (the perf gate measures it). Not
 * installed.
 */
#ifndef RATELAB_REDIS_ARGV_H
#define RATELAB_REDIS_ARGV_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/redis.h"
#include "redis_resp.h"

/* The arguments of one EVALSHA, in buffers of its own (keys: prefix, braces, key, ":l"). */
struct rl__redis_cmd {
	char keys[2][64 + RL_REDIS_KEY_MAX + 8];
	char num[7][24]; /* a settle's: now, N, W, B, grace, admitted_ns, delta */
	int argc;
	int key; /* argv[key] is the Redis key, which Redis Cluster routes by */
	const char *argv[12]; /* room for every batched and breaker command */
	size_t len[12];
};

/*
 * Fills c with the EVALSHA of request q (already checked: a known
 * algorithm, key length 1..RL_REDIS_KEY_MAX, time and cost in range) on
 * r's key prefix and TTL grace; c->argv points into c and into r's script
 * SHA1s (empty until r has connected).
 */
void rl__redis_request_argv(const struct rl_redis *r, const struct rl_redis_req *q, struct rl__redis_cmd *c);

#endif
