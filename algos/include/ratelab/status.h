/*
 * status.h - error codes shared by every ratelab call.
 *
 * Calls return RL_OK (0) or a negative rl_status; they never abort on a
 * caller's mistake. rl_strerror() names a code for messages ("unknown
 * status" for a value that is none of them).
 */
#ifndef RATELAB_STATUS_H
#define RATELAB_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every status, once: X(NAME, value, message, meaning). The enum and
 * rl_strerror() are derived from this list. EREDIS and the RC_ codes are
 * the Redis backend's (ratelab/redis.h; RC_: its Redis Cluster routing).
 */
#define RL_STATUS_LIST(X)                                                                      \
	X(OK, 0, "ok", "success")                                                              \
	X(EINVAL, -1, "invalid argument", "an argument is out of its documented range")        \
	X(ENOMEM, -2, "out of memory", "an allocation failed; no decision was affected")       \
	X(ERANGE, -3, "time out of range", "a time lies outside [0, RL_TIME_MAX_NS]")          \
	X(EORDER, -4, "time went backwards", "a time went backwards where that is not allowed") \
	X(EFULL, -5, "table full", "a bounded table or buffer is at capacity")                 \
	X(ENOTFOUND, -6, "not found", "a file or name that does not exist (a config not opened)") \
	X(EIO, -7, "input/output error", "reading a file failed (told apart from its end)")       \
	X(EREDIS, -8, "redis error", "Redis answered an error (a wrong-type key, a script error): no decision") \
	X(RC_EIO, -9, "redis cluster: connection failed", "a cluster node's connect, send or receive failed or timed out") \
	X(RC_EPROTO, -10, "redis cluster: unexpected reply", "a reply of an unexpected shape (e.g. CLUSTER SLOTS)") \
	X(RC_EREDIRECT, -11, "redis cluster: too many redirections", "more MOVED/ASK answers for one command than allowed") \
	X(RC_ENOSLOT, -12, "redis cluster: slot not served", "no node is known to own the key's slot")

enum rl_status {
#define RL_STATUS_ENUM(name, value, message, meaning) RL_##name = value,
	RL_STATUS_LIST(RL_STATUS_ENUM)
#undef RL_STATUS_ENUM
};

/* The non-negative results of a check: the verdict. */
enum { RL_REJECTED = 0, RL_ALLOWED = 1 };

const char *rl_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif
