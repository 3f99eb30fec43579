/*
 * redis_resp.h - private: numbers and commands written as RESP, the one
 * writer the backend (redis.c) and the cluster router (redis_cluster.c)
 * both queue their commands with. Not installed.
 */
#ifndef RATELAB_REDIS_RESP_H
#define RATELAB_REDIS_RESP_H

#include <stddef.h>
#include <stdint.h>

/*
 * v >= 0 in decimal into buf (room for 20 digits and a NUL), returning its
 * length. Every number of every command is written here, on the client's
 * path per decision, where snprintf would parse its format each time.
 */
static inline size_t rl__redis_decimal(char *buf, int64_t v)
{
	char tmp[20];
	size_t n = 0;
	uint64_t u = (uint64_t)v;

	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

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
