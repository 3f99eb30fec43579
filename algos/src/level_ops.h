/*
 * level_ops.h - private: load, drain and store the 96-bit level of
 * struct rl_level (token_bucket, leaky_bucket).
 */
#ifndef RATELAB_LEVEL_OPS_H
#define RATELAB_LEVEL_OPS_H

#include "arith.h"
#include "ratelab/level.h"

static inline rl_u128 rl_level_load(const struct rl_level *st)
{
	return ((rl_u128)st->level_hi << 64) | st->level_lo;
}

static inline void rl_level_store(struct rl_level *st, rl_u128 level)
{
	st->level_lo = (uint64_t)level;
	st->level_hi = (uint32_t)(level >> 64);
}

/*
 * The level at now (clamped to the last seen time), after draining N per ns
 * since then; records now as the last seen time.
 */
static inline rl_u128 rl_level_drain(const struct rl_limiter *lim, struct rl_level *st,
				     int64_t now_ns)
{
	int64_t now = rl_clamp(now_ns, st->last_ns);
	rl_u128 level = rl_level_load(st);
	rl_u128 drained = (rl_u128)(uint64_t)lim->rule.limit * (uint64_t)(now - st->last_ns);

	st->last_ns = now;
	return level > drained ? level - drained : 0;
}

/* True when the level has drained to 0 by now: the key is as good as new. */
static inline bool rl_level_empty(const struct rl_limiter *lim, const struct rl_level *st,
				  int64_t now_ns)
{
	rl_u128 level = rl_level_load(st);
	int64_t now = rl_clamp(now_ns, st->last_ns);

	return level <= (rl_u128)(uint64_t)lim->rule.limit * (uint64_t)(now - st->last_ns);
}

#endif
