/*
 * level_ops.h - private: the level of struct rl_level (token_bucket,
 * leaky_bucket) at a given time, from the instant it drains to zero.
 *
 * A check is written as GCRA is: with at = now * N and base = max(due, at)
 * (the drain instant if the level at now were added to now), the level at
 * now is base - at (no clamp at 0: the max did it), a request taking take
 * admits iff base - at + x <= limit (rl_level_fits), limit being the most
 * the level may hold and x the part of take that must fit, and then
 * due = base + take; a rejection leaves due as it is (max(due, at) and due
 * give the same level at now and at every later time the clamp lets
 * through). The chain from one check's load of due to its store, which
 * the next check of the key waits for, is one add, one compare and the
 * masked add (rl_level_advance); at, its sum with limit and the max
 * depend on now alone or run beside it.
 */
#ifndef RATELAB_LEVEL_OPS_H
#define RATELAB_LEVEL_OPS_H

#include "arith.h"
#include "ratelab/level.h"

static inline rl_u128 rl_level_load(const struct rl_level *st)
{
	return ((rl_u128)st->due_hi << 64) | st->due_lo;
}

/*
 * due = base + take when admitted, else due as it was, stored without a
 * branch: over many keys the verdicts follow no pattern a predictor could
 * learn. A rejected take of at most limit means base > at, so base = due:
 * base + (take or 0) covers both (a larger take is decided on a copy).
 * Returns the due stored: the level after the decision is it minus at.
 */
static inline rl_u128 rl_level_advance(struct rl_level *st, rl_u128 base, rl_u128 take, int verdict)
{
	uint64_t admitted = -(uint64_t)verdict; /* all ones or zero */
	/* by halves: a take below 2^64 (any cost-1 take) folds to one and */
	rl_u128 due = base + ((uint64_t)take & admitted) +
		      ((rl_u128)((uint64_t)(take >> 64) & admitted) << 64);

	st->due_lo = (uint64_t)due;
	st->due_hi = (uint32_t)(due >> 64);
	return due;
}

/*
 * now * N in 1/N ns, now clamped to the last seen time, which it records.
 * The product is taken from now itself, so the previous call's last_ns
 * only feeds a (predictable) branch, not the arithmetic: consecutive
 * checks of a key do not wait on each other's multiply.
 */
static inline rl_u128 rl_level_now(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns)
{
	uint64_t n = (uint64_t)lim->rule.limit;
	rl_u128 at = rl_mul_wide(n, (uint64_t)now_ns);

	if (now_ns < st->last_ns)
		at = rl_mul_wide(n, (uint64_t)st->last_ns);
	else
		st->last_ns = now_ns;
	return at;
}

/* max(due, at): due once the level at at (= now * N) is counted from at. */
static inline rl_u128 rl_level_base(const struct rl_level *st, rl_u128 at)
{
	rl_u128 due = rl_level_load(st);

	return due > at ? due : at;
}

/*
 * base - at + x <= limit for an x <= limit, as due + x <= at + limit: when
 * due <= at, base - at is 0 and x <= limit passes, as the sum does. The
 * verdict then waits on due for an add and a compare, not for the max as
 * well. No sum wraps: due < 2^90 (level.h), at < 2^125, x and limit < 2^126.
 */
static inline int rl_level_fits(const struct rl_level *st, rl_u128 at, rl_u128 x, rl_u128 limit)
{
	return rl_level_load(st) + x <= at + limit;
}

/* True when the level has drained to 0 by now: the key is as good as new. */
static inline bool rl_level_empty(const struct rl_limiter *lim, const struct rl_level *st,
				  int64_t now_ns)
{
	int64_t now = rl_clamp(now_ns, st->last_ns);

	return rl_level_load(st) <= (rl_u128)(uint64_t)lim->rule.limit * (uint64_t)now;
}

#endif
