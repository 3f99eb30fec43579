/*
 * status.h - error codes shared by every ratelab call.
 *
 * Calls return RL_OK (0) or a negative rl_status; they never abort on a
 * caller's mistake. rl_strerror() names a code for messages.
 */
#ifndef RATELAB_STATUS_H
#define RATELAB_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum rl_status {
	RL_OK = 0,
	RL_EINVAL = -1,   /* an argument is out of its documented range */
	RL_ENOMEM = -2,   /* an allocation failed; no decision was affected */
	RL_ERANGE = -3,   /* a time lies outside [0, RL_TIME_MAX_NS] */
	RL_EORDER = -4,   /* a time went backwards where that is not allowed */
	RL_EFULL = -5,    /* a bounded table is at capacity */
	RL_ENOTFOUND = -6 /* no such name */
};

/* The non-negative results of a check: the verdict. */
enum { RL_REJECTED = 0, RL_ALLOWED = 1 };

const char *rl_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif
