/*
 * level_ops.h - private: the level of struct rl_level (token_bucket,
 * leaky_bucket) at a given time, from the instant it drains to zero.
 */
#ifndef RATELAB_LEVEL_OPS_H
#define RATELAB_LEVEL_OPS_H

#include "arith.h"
#include "ratelab/level.h"

static inline rl_u128 rl_level_load(const struct rl_level *st)
{
	return ((rl_u128)st->due_hi << 64) | st->due_lo;
}

/* Stores the level left at the instant now_n (now * N): due = now_n + level. */
static inline void rl_level_store(struct rl_level *st, rl_u128 now_n, rl_u128 level)
{
	rl_u128 due = now_n + level;

	st->due_lo = (uint64_t)due;
	st->due_hi = (uint32_t)(due >> 64);
}

/*
 * The level at now (clamped to the last seen time), in 1/W-request units:
 * due - now * N, or 0 once drained; records now as the last seen time and
 * sets *now_n = now * N. The product is taken from now itself, so the
 * previous call's last_ns only feeds a (predictable) branch, not the
 * arithmetic: consecutive checks of a key do not wait on each other's
 * multiply.
 */
static inline rl_u128 rl_level_drain(const struct rl_limiter *lim, struct rl_level *st,
				     int64_t now_ns, rl_u128 *now_n)
{
	uint64_t n = (uint64_t)lim->rule.limit;
	rl_u128 at = (rl_u128)n * (uint64_t)now_ns;
	rl_u128 due = rl_level_load(st);

	if (now_ns < st->last_ns)
		at = (rl_u128)n * (uint64_t)st->last_ns;
	else
		st->last_ns = now_ns;
	*now_n = at;
	return due > at ? due - at : 0;
}

/* True when the level has drained to 0 by now: the key is as good as new. */
static inline bool rl_level_empty(const struct rl_limiter *lim, const struct rl_level *st,
				  int64_t now_ns)
{
	int64_t now = rl_clamp(now_ns, st->last_ns);

	return rl_level_load(st) <= (rl_u128)(uint64_t)lim->rule.limit * (uint64_t)now;
}

#endif
