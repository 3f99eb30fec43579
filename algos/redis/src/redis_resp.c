/*
 * redis_resp.c - a command written as one RESP array (redis_resp.h), below
 * both the backend (redis.c) and the cluster router (redis_cluster.c).
 */
#include "redis_resp.h"

#include <string.h>

#include <hiredis/hiredis.h>

int rl__redis_append(struct redisContext *ctx, int argc, const char *const *argv, const size_t *len)
{
	char buf[RL__REDIS_RESP_MAX];
	size_t n = 0;

	buf[n++] = '*';
	n += rl__redis_decimal(buf + n, argc);
	buf[n++] = '\r', buf[n++] = '\n';
	for (int i = 0; i < argc; i++) {
		/* '$', at most 20 digits and a NUL, CRLF, the bytes, CRLF */
		if (len[i] > sizeof(buf) - n - 26)
			return redisAppendCommandArgv(ctx, argc, (const char **)argv, len);
		buf[n++] = '$';
		n += rl__redis_decimal(buf + n, (int64_t)len[i]);
		buf[n++] = '\r', buf[n++] = '\n';
		memcpy(buf + n, argv[i], len[i]);
		n += len[i];
		buf[n++] = '\r', buf[n++] = '\n';
	}
	return redisAppendFormattedCommand(ctx, buf, n);
}
