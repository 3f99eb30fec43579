/*
 * token_bucket_ops.h - private: token_bucket's step on its level
 * (level_ops.h), inline, for its entry points (token_bucket.c) and the
 * thread-safe routes that run its cost-1 verdict under their lock
 * (verdicts.h).
 */
#ifndef RATELAB_TOKEN_BUCKET_OPS_H
#define RATELAB_TOKEN_BUCKET_OPS_H

#include "level_ops.h"

/* A check of cost units: all of its take, c * W, must fit; for c <= B
 * only: B >= 1 takes any cost of 1. */
static RL_ALWAYS_INLINE struct rl__level_step rl__token_bucket_step(const struct rl_limiter *lim, struct rl_level *st,
								   int64_t now_ns, int64_t cost)
{
	rl__u128 take = (rl__u128)(uint64_t)lim->rule.window_ns * (uint64_t)cost;

	return rl__level_check(lim, st, now_ns, take, take, -(uint64_t)(cost == 1 || cost <= lim->rule.burst));
}

/* The cost-1 verdict without an answer (algo.h's verdict op). */
static RL_ALWAYS_INLINE int rl__token_bucket_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__time_ok(now_ns) ? (int)(rl__token_bucket_step(lim, st, now_ns, 1).admitted & 1) : RL_ERANGE;
}

#endif
