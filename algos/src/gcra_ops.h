/*
 * gcra_ops.h - private: gcra's check (gcra.c), inline, for the
 * thread-safe routes that run its cost-1 verdict under their lock
 * (verdicts.h says why).
 */
#ifndef RATELAB_GCRA_OPS_H
#define RATELAB_GCRA_OPS_H

#include "arith.h"
#include "ratelab/gcra.h"

/* gcra's constants, derived from its rule by its init op (gcra.c), in the
 * limiter's private area. */
struct rl__gcra_priv {
	int64_t tolerance_ns; /* tau = min((B - 1) * T, RL_GCRA_HORIZON_NS - T), ns */
	int64_t emission_ns;  /* T = ceil(W / N), ns between admissions at the long-run rate */
};

static inline const struct rl__gcra_priv *rl__gcra_priv(const struct rl_limiter *lim)
{
	return (const struct rl__gcra_priv *)(const void *)lim->priv.bytes;
}

/* The answer's division, inline in the answered paths only: the verdict
 * (out == NULL) is rl__gcra_decide() with it folded away. */
static RL_ALWAYS_INLINE void rl__gcra_explain(int64_t debt, int64_t tol, int64_t t, int64_t cost,
					      int verdict, struct rl_decision *out)
{
	rl__u128 last = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)t;

	/* units still possible at now: debt + k * T <= tol + T */
	out->remaining = debt <= tol ? (tol - debt) / t + 1 : 0;
	if (verdict)
		out->retry_after_ns = 0;
	else if (last > (rl__u128)tol) /* (c - 1) * T > tau: never */
		out->retry_after_ns = RL_DURATION_MAX_NS;
	else /* the smallest d with debt - d + (c - 1) * T <= tau */
		out->retry_after_ns = debt - (tol - (int64_t)last);
	out->reset_ns = debt;
	out->delay_ns = 0;
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int rl__gcra_decide(const struct rl_limiter *lim, struct rl_gcra *st, int64_t now_ns,
					   int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	int64_t now = rl__clamp_record(&st->last_ns, now_ns);
	int64_t t = rl__gcra_priv(lim)->emission_ns;
	int64_t tat = st->tat_ns > now ? st->tat_ns : now;
	/* debt: how far the key runs ahead of its rate, ns; tau <= INT64_MAX (gcra.h) */
	int64_t debt = tat - now;
	int64_t tol = rl__gcra_priv(lim)->tolerance_ns;
	/* the request's units after its first, as emission time: up to 10^30 ns */
	rl__u128 last = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)t;
	/* debt + (c - 1) * T <= tau; once (c - 1) * T <= tau, the sum of two
	 * non-negative int64 is exact in uint64 (the other half is then void) */
	int verdict = (last <= (rl__u128)tol) & ((uint64_t)debt + (uint64_t)last <= (uint64_t)tol);

	/* debt + c * T <= tau + T when admitted: no overflow. Branch-free: over
	 * many keys the verdicts follow no pattern a predictor could learn. */
	int64_t take = (int64_t)(((uint64_t)last + (uint64_t)t) & -(uint64_t)verdict);
	debt += take;
	st->tat_ns = verdict ? tat + take : st->tat_ns;
	if (out)
		rl__gcra_explain(debt, tol, t, cost, verdict, out);
	return verdict;
}

/* One request of cost 1 without an answer: algo.h's verdict op. */
static RL_ALWAYS_INLINE int rl__gcra_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__gcra_decide(lim, st, now_ns, 1, NULL);
}

#endif
