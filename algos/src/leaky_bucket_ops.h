/*
 * leaky_bucket_ops.h - private: leaky_bucket's step on its level
 * (level_ops.h), inline, for its entry points (leaky_bucket.c) and the
 * thread-safe routes that run its cost-1 verdict under their lock
 * (verdicts.h).
 */
#ifndef RATELAB_LEAKY_BUCKET_OPS_H
#define RATELAB_LEAKY_BUCKET_OPS_H

#include "level_ops.h"

/* A check of cost units: all but the last of its c units, (c - 1) * W,
 * must fit; for c <= B only. */
static RL_ALWAYS_INLINE struct rl__level_step rl__leaky_bucket_step(const struct rl_limiter *lim, struct rl_level *st,
								   int64_t now_ns, int64_t cost)
{
	rl__u128 w = (uint64_t)lim->rule.window_ns;
	rl__u128 last = w * (uint64_t)(cost - 1); /* the last unit's place in the request */

	return rl__level_check(lim, st, now_ns, last, last + w, -(uint64_t)(cost == 1 || cost <= lim->rule.burst));
}

/* The cost-1 verdict without an answer (algo.h's verdict op). */
static RL_ALWAYS_INLINE int rl__leaky_bucket_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__time_ok(now_ns) ? (int)(rl__leaky_bucket_step(lim, st, now_ns, 1).admitted & 1) : RL_ERANGE;
}

#endif
