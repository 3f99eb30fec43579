/*
 * redis_argv.h - private: the EVALSHA command the Redis backend sends for
 * one request, built without the network (the perf gate measures it), and
 * how a command is queued on a connection. Not installed.
 */
#ifndef RATELAB_REDIS_ARGV_H
#define RATELAB_REDIS_ARGV_H

#include <stddef.h>
#include <stdint.h>

#include "ratelab/redis.h"

/* The arguments of one EVALSHA, in buffers of its own (keys: prefix, braces, key, ":l"). */
struct rl__redis_cmd {
	char keys[2][64 + RL_REDIS_KEY_MAX + 8];
	char num[6][24];
	int argc;
	int key; /* argv[key] is the Redis key, which Redis Cluster routes by */
	const char *argv[11];
	size_t len[11];
};

/*
 * Fills c with the EVALSHA of request q (already checked: a known
 * algorithm, key length 1..RL_REDIS_KEY_MAX, time and cost in range) on
 * r's key prefix and TTL grace; c->argv points into c and into r's script
 * SHA1s (empty until r has connected).
 */
void rl__redis_request_argv(const struct rl_redis *r, const struct rl_redis_req *q, struct rl__redis_cmd *c);

/*
 * v >= 0 in decimal into buf (room for 20 digits and a NUL), returning its
 * length. Every number of every command is written here, on the client's
 * path per decision, where snprintf would parse its format each time.
 */
size_t rl__redis_decimal(char *buf, int64_t v);

/* The largest command rl__redis_append writes in one piece. */
#define RL__REDIS_RESP_MAX 4096

struct redisContext;

/*
 * Queues the command argv[0..argc) (len[i] bytes each) on ctx, as
 * redisAppendCommandArgv does (REDIS_OK or REDIS_ERR): written here as one
 * RESP array of bulk strings and handed to hiredis whole, where hiredis
 * would build it through a reallocating string per argument; a command
 * longer than RL__REDIS_RESP_MAX bytes (a script's text) goes through
 * hiredis.
 */
int rl__redis_append(struct redisContext *ctx, int argc, const char *const *argv, const size_t *len);

#endif
