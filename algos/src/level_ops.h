/*
 * level_ops.h - private: one check of a struct rl_level (token_bucket,
 * leaky_bucket): the level at now, the request's fit, the level after.
 *
 * The level at now is the stored one less what drained since the last
 * seen time: max(0, level - min(now - last_ns, D) * N), D being the
 * longest any level takes to drain (rl_limiter.drain_ns), so that the
 * product never exceeds the level's width by more than N. A request
 * admits iff level + x <= B * W, x being the part of its take that must
 * fit (all of it for token_bucket, all but the last unit for
 * leaky_bucket); then level += take. The time is recorded either way.
 *
 * Two widths, one result. When (B + 1) * W < 2^63
 * (rl_limiter.level_narrow: every rule with W up to 9 s, and longer
 * windows with smaller bursts) every value fits 64 bits, and the check
 * is a dozen one-word operations inline. Otherwise it runs in 128 bits,
 * out of line (level.c). A narrow limiter's levels keep level_hi at 0.
 */
#ifndef RATELAB_LEVEL_OPS_H
#define RATELAB_LEVEL_OPS_H

#include "arith.h"
#include "ratelab/level.h"

/* What one check did: admitted is all ones or zero; before is the level
 * at now before the request, in 1/W request. */
struct rl_level_step {
	uint64_t admitted;
	rl_u128 before;
};

static inline rl_u128 rl_level_load(const struct rl_level *st)
{
	return ((rl_u128)st->level_hi << 64) | st->level_lo;
}

/* ns since the last seen time, at most D: the level drained is it times N. */
static inline uint64_t rl_level_idle_ns(const struct rl_limiter *lim, int64_t now, int64_t last_ns)
{
	uint64_t d = (uint64_t)(now - last_ns);

	return d < (uint64_t)lim->drain_ns ? d : (uint64_t)lim->drain_ns;
}

/* The check of a wide limiter, in 128 bits, out of line (level.c). */
struct rl_level_step rl_level_check_wide(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns,
					 rl_u128 x, rl_u128 take, uint64_t ok);

/*
 * The check: ok is all ones when the request may be admitted at all (its
 * cost at most B), else zero; x and take are then at most (B + 1) * W.
 * The narrow path stores level + (take & admitted) without a branch: over
 * many keys the verdicts follow no pattern a predictor could learn. Its
 * values: level <= (B + 1) * W < 2^63, the drained amount below
 * (B + 1) * W + N, B * W - x + 1 computed from the limiter alone (it
 * wraps only when ok is zero, which clears the verdict).
 */
static RL_ALWAYS_INLINE struct rl_level_step
rl_level_check(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns, rl_u128 x, rl_u128 take,
	       uint64_t ok)
{
	if (!lim->level_narrow)
		return rl_level_check_wide(lim, st, now_ns, x, take, ok);

	int64_t now = rl_clamp(now_ns, st->last_ns);
	uint64_t drained = rl_level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
	uint64_t level = st->level_lo;
	uint64_t before = level > drained ? level - drained : 0;
	/* before + x <= B * W as before < B * W - x + 1: the borrow is the mask */
	uint64_t room = rl_opaque_u64((uint64_t)rl_wide_get(lim->burst_w) - (uint64_t)x + 1);
	uint64_t admitted = -(uint64_t)(before < room) & ok;

	st->last_ns = now;
	st->level_lo = before + ((uint64_t)take & admitted);
	return (struct rl_level_step){ admitted, before };
}

/* token_bucket's check of cost units (token_bucket.c): all of its take,
 * c * W, must fit; for c <= B only: B >= 1 takes any cost of 1. */
static RL_ALWAYS_INLINE struct rl_level_step rl_token_bucket_step(const struct rl_limiter *lim, struct rl_level *st,
								  int64_t now_ns, int64_t cost)
{
	rl_u128 take = (rl_u128)(uint64_t)lim->rule.window_ns * (uint64_t)cost;

	return rl_level_check(lim, st, now_ns, take, take, -(uint64_t)(cost == 1 || cost <= lim->rule.burst));
}

/* leaky_bucket's (leaky_bucket.c): all but the last of its c units,
 * (c - 1) * W, must fit; for c <= B only. */
static RL_ALWAYS_INLINE struct rl_level_step rl_leaky_bucket_step(const struct rl_limiter *lim, struct rl_level *st,
								  int64_t now_ns, int64_t cost)
{
	rl_u128 w = (uint64_t)lim->rule.window_ns;
	rl_u128 last = w * (uint64_t)(cost - 1); /* the last unit's place in the request */

	return rl_level_check(lim, st, now_ns, last, last + w, -(uint64_t)(cost == 1 || cost <= lim->rule.burst));
}

/* Their cost-1 verdicts without an answer (algo.h's verdict ops), inline
 * for the thread-safe routes too (verdicts.h). */
static RL_ALWAYS_INLINE int rl_token_bucket_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl_time_ok(now_ns) ? (int)(rl_token_bucket_step(lim, st, now_ns, 1).admitted & 1) : RL_ERANGE;
}

static RL_ALWAYS_INLINE int rl_leaky_bucket_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl_time_ok(now_ns) ? (int)(rl_leaky_bucket_step(lim, st, now_ns, 1).admitted & 1) : RL_ERANGE;
}

/* True when the level has drained to 0 by now: the key is as good as new. */
static inline bool rl_level_empty(const struct rl_limiter *lim, const struct rl_level *st,
				  int64_t now_ns)
{
	int64_t now = rl_clamp(now_ns, st->last_ns);

	return rl_level_load(st) <=
	       (rl_u128)rl_level_idle_ns(lim, now, st->last_ns) * (uint64_t)lim->rule.limit;
}

#endif
