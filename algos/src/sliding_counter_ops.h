/*
 * sliding_counter_ops.h - private: sliding_counter's window advance and
 * its cost-1 verdict for N * W < 2^64 (sliding_counter.c), inline, for the
 * thread-safe routes that run it under their lock (verdicts.h says why).
 */
#ifndef RATELAB_SLIDING_COUNTER_OPS_H
#define RATELAB_SLIDING_COUNTER_OPS_H

#include "arith.h"
#include "ratelab/sliding_counter.h"

/* sliding_counter's constant, derived from its rule by its init op
 * (sliding_counter.c), in the limiter's private area. */
struct rl__sliding_counter_priv {
	struct rl_wide quota_nw; /* N * W, request-ns */
};

static inline const struct rl__sliding_counter_priv *rl__sliding_counter_priv(const struct rl_limiter *lim)
{
	return (const struct rl__sliding_counter_priv *)(const void *)lim->priv.bytes;
}

/* Advances the state to now's window; returns e = now - window start. */
static inline int64_t rl__sliding_counter_advance(int64_t w, struct rl_sliding_counter *st, int64_t now)
{
	if (now >= st->end_ns) {
		int64_t start = now - now % w;

		st->prev = start == st->end_ns ? st->curr : 0;
		st->curr = 0;
		st->end_ns = start + w;
	}
	return now - (st->end_ns - w);
}

/*
 * The verdict of a cost-1 request when N * W < 2^64 (quota_nw.hi == 0,
 * any rule with W below 5 hours; the caller makes sure): prev * (W - e) <
 * (N - curr) * W, both sides at most N * W as prev, curr <= N, so exact in
 * 64 bits, two single multiplies instead of the full check's 128-bit ones.
 */
static RL_ALWAYS_INLINE int rl__sliding_counter_verdict_narrow(const struct rl_limiter *lim, void *state,
							       int64_t now_ns)
{
	struct rl_sliding_counter *st = state;

	if (!rl__time_ok(now_ns))
		return RL_ERANGE;

	int64_t now = rl__clamp_record(&st->last_ns, now_ns);
	int64_t w = lim->rule.window_ns;

	(void)rl__sliding_counter_advance(w, st, now);
	/* W - e = end - now */
	int verdict = st->prev * (uint64_t)(st->end_ns - now) < ((uint64_t)lim->rule.limit - st->curr) * (uint64_t)w;

	/* curr + 1 <= N when admitted; no branch: over many keys the verdicts
	 * follow no pattern a predictor could learn */
	st->curr += (uint64_t)verdict;
	return verdict;
}

/* The cost-1 verdict: the narrow one for N * W < 2^64, else the verdict
 * op's full check. */
static RL_ALWAYS_INLINE int rl__sliding_counter_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__sliding_counter_priv(lim)->quota_nw.hi ? lim->algo->verdict(lim, st, now_ns)
							   : rl__sliding_counter_verdict_narrow(lim, st, now_ns);
}

#endif
