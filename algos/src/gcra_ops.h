/*
 * gcra_ops.h - private: gcra's check (gcra.c), inline, for the
 * thread-safe routes that run its cost-1 verdict under their lock
 * (verdicts.h says why).
 *
 * Times past the whole ns are kept as pairs (ns, frac): the value ns +
 * frac / N, 0 <= frac < N, N the rule's limit. T = W / N is the pair
 * (floor(W / N), W mod N), exact for every N and W; tau likewise. The
 * cost-1 check adds and compares pairs with one-word operations only: no
 * multiply, no division; its answer divides in one word when T is whole.
 */
#ifndef RATELAB_GCRA_OPS_H
#define RATELAB_GCRA_OPS_H

#include "arith.h"
#include "ratelab/gcra.h"

/* gcra's constants, derived from its rule by its init op (gcra.c), in the
 * limiter's private area. */
struct rl__gcra_priv {
	int64_t emission_ns;     /* floor(T), T = W / N: ns between admissions at the long-run rate */
	uint64_t emission_frac;  /* T - floor(T), in 1/N ns: W mod N */
	int64_t tolerance_ns;    /* floor(tau), tau = min((B - 1) * T, RL_GCRA_HORIZON_NS - T), ns */
	uint64_t tolerance_frac; /* tau - floor(tau), in 1/N ns */
	struct rl_wide tolerance_u; /* tau * N, in 1/N ns (below 2^103) */
};

static inline const struct rl__gcra_priv *rl__gcra_priv(const struct rl_limiter *lim)
{
	return (const struct rl__gcra_priv *)(const void *)lim->priv.bytes;
}

/* True when T is a whole number of ns (N divides W): then every check and
 * settle keeps a state's frac 0 (tau, the debt cap and delta * W are whole
 * ns); only a rule change from another rule may leave one. */
static inline bool rl__gcra_whole(const struct rl_limiter *lim)
{
	return rl__gcra_priv(lim)->emission_frac == 0;
}

/* A pair (ns, frac) in 1/N ns, as one 128-bit count of 1/N ns. */
static inline rl__u128 rl__gcra_units(int64_t ns, uint64_t frac, int64_t n)
{
	return (rl__u128)(uint64_t)ns * (uint64_t)n + frac;
}

/* floor((tau - debt) / T) + 1 for a T that is not whole: x = tau - debt
 * as the pair (x_ns, x_frac), in 1/N ns below 2^103 (gcra.h). */
static RL_NOINLINE int64_t rl__gcra_remaining_frac(const struct rl_limiter *lim, int64_t x_ns, uint64_t x_frac)
{
	rl__u128 x_u = rl__gcra_units(x_ns, x_frac, lim->rule.limit);

	return rl__sat_count(x_u / (uint64_t)lim->rule.window_ns + 1);
}

/*
 * The answer, from the pairs of the decision: d the debt after it, s =
 * debt + (c - 1) * T before it (fits: (c - 1) * T <= tau). remaining =
 * floor((tau - d) / T) + 1 units while d <= tau: for T whole, floor(x_ns /
 * T) (x's fraction below 1 ns cannot reach a whole T), else in 1/N ns;
 * retry_after_ns the least whole wait w with s - w <= tau, ceil(s - tau) =
 * s_ns - tau_ns + (s_frac > tau_frac); reset_ns ceil(d).
 */
static RL_ALWAYS_INLINE void rl__gcra_explain(const struct rl_limiter *lim, int64_t d_ns, uint64_t d_frac,
					      uint64_t s_ns, uint64_t s_frac, int fits, int verdict,
					      struct rl_decision *out)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	uint64_t tol_frac = p->tolerance_frac;
	int64_t tol_ns = p->tolerance_ns;

	out->remaining = 0;
	if (d_ns + (int64_t)(d_frac > tol_frac) <= tol_ns) {
		/* x = tau - d >= 0, borrowing one ns for the fraction */
		int64_t x_ns = tol_ns - d_ns - (int64_t)(d_frac > tol_frac);
		uint64_t x_frac = tol_frac - d_frac + (d_frac > tol_frac ? (uint64_t)lim->rule.limit : 0);
		out->remaining = p->emission_frac == 0 ? x_ns / p->emission_ns + 1
						       : rl__gcra_remaining_frac(lim, x_ns, x_frac);
	}
	if (verdict)
		out->retry_after_ns = 0;
	else if (!fits) /* (c - 1) * T > tau: never */
		out->retry_after_ns = RL_DURATION_MAX_NS;
	else
		out->retry_after_ns = (int64_t)(s_ns - (uint64_t)tol_ns) + (s_frac > tol_frac);
	out->reset_ns = d_ns + (d_frac != 0);
	out->delay_ns = 0;
}

/*
 * The check on pairs (ns, frac) at now (clamped): the sum of two values
 * below 2^63 is exact in uint64; a frac sum below 2 * N carries at most
 * one ns. Out of line: the whole-ns check beside it keeps its registers.
 */
static RL_NOINLINE int rl__gcra_decide_pairs(const struct rl_limiter *lim, struct rl_gcra *st, int64_t now,
					     int64_t cost, struct rl_decision *out)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	uint64_t n = (uint64_t)lim->rule.limit;
	/* debt = max(TAT, now) - now: TAT >= now iff tat_ns >= now, frac being >= 0 */
	bool ahead = st->tat_ns >= now;
	int64_t d_ns = ahead ? st->tat_ns - now : 0;
	uint64_t d_frac = ahead ? st->tat_frac : 0;
	/* s = debt + (c - 1) * T, (c - 1) * T up to 10^30 / N ns */
	uint64_t s_ns = (uint64_t)d_ns, s_frac = d_frac;
	int fits = 1;

	if (cost != 1) {
		rl__u128 last_u = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)lim->rule.window_ns;
		fits = last_u <= rl__wide_get(p->tolerance_u);
		/* once (c - 1) * T <= tau < 2^63 ns its pair is one-word */
		uint64_t l_ns = fits ? (uint64_t)(last_u / n) : 0, l_frac = fits ? (uint64_t)(last_u % n) : 0;
		uint64_t carry = (s_frac += l_frac) >= n;
		s_ns += l_ns + carry;
		s_frac -= n & -carry;
	}
	/* s <= tau, as pairs: s_ns < tau_ns, or equal with s_frac <= tau_frac */
	int verdict = fits & (s_ns + (s_frac > p->tolerance_frac) <= (uint64_t)p->tolerance_ns);
	/* TAT = max(TAT, now) + c * T = now + s + T; s + T <= tau + T: no
	 * overflow. Branch-free: over many keys the verdicts follow no
	 * pattern a predictor could learn. */
	uint64_t t_frac = s_frac + p->emission_frac;
	uint64_t t_carry = t_frac >= n;
	uint64_t t_ns = s_ns + (uint64_t)p->emission_ns + t_carry;
	t_frac -= n & -t_carry;
	st->tat_ns = verdict ? now + (int64_t)t_ns : st->tat_ns;
	st->tat_frac = verdict ? t_frac : st->tat_frac;
	if (out)
		rl__gcra_explain(lim, verdict ? (int64_t)t_ns : d_ns, verdict ? t_frac : d_frac, s_ns, s_frac, fits,
				 verdict, out);
	return verdict;
}

/*
 * The check when T is whole and the state's frac 0 (rl__gcra_whole: what
 * every check and settle under such a rule keeps): every frac is 0, so
 * rl__gcra_decide_pairs reduces to one-word ns, decided here without them.
 */
static RL_ALWAYS_INLINE int rl__gcra_decide_whole(const struct rl_limiter *lim, struct rl_gcra *st, int64_t now,
						  int64_t cost, struct rl_decision *out)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	int64_t t = p->emission_ns, tol = p->tolerance_ns;
	int64_t tat = st->tat_ns > now ? st->tat_ns : now;
	/* debt: how far the key runs ahead of its rate, ns */
	int64_t debt = tat - now;
	/* the request's units after its first, as emission time: up to 10^30 ns */
	rl__u128 last = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)t;
	/* debt + (c - 1) * T <= tau; once (c - 1) * T <= tau, the sum of two
	 * non-negative int64 is exact in uint64 (the other half is then void) */
	int verdict = (last <= (rl__u128)(uint64_t)tol) & ((uint64_t)debt + (uint64_t)last <= (uint64_t)tol);
	/* debt + c * T <= tau + T when admitted: no overflow; branch-free */
	int64_t take = (int64_t)(((uint64_t)last + (uint64_t)t) & -(uint64_t)verdict);

	debt += take;
	st->tat_ns = verdict ? tat + take : st->tat_ns;
	if (out) {
		/* rl__gcra_explain with every frac 0: units still possible at now,
		 * debt + k * T <= tau + T; the smallest d with debt - d + (c - 1) * T <= tau */
		out->remaining = debt <= tol ? (tol - debt) / t + 1 : 0;
		if (verdict)
			out->retry_after_ns = 0;
		else if (last > (rl__u128)(uint64_t)tol) /* (c - 1) * T > tau: never */
			out->retry_after_ns = RL_DURATION_MAX_NS;
		else
			out->retry_after_ns = debt - (tol - (int64_t)last);
		out->reset_ns = debt;
		out->delay_ns = 0;
	}
	return verdict;
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones. A rule with T whole decides in one-word ns while the
 * state's frac is 0 (always, but after a rule change from another rule).
 */
static RL_ALWAYS_INLINE int rl__gcra_decide(const struct rl_limiter *lim, struct rl_gcra *st, int64_t now_ns,
					   int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	int64_t now = rl__clamp_record(&st->last_ns, now_ns);

	if ((rl__gcra_priv(lim)->emission_frac | st->tat_frac) == 0)
		return rl__gcra_decide_whole(lim, st, now, cost, out);
	return rl__gcra_decide_pairs(lim, st, now, cost, out);
}

/* rl__gcra_decide for a rule with T whole on a state whose frac is 0 (the
 * lock-free route's, gcra_cas.h): the whole-ns check alone. */
static RL_ALWAYS_INLINE int rl__gcra_decide_whole_rule(const struct rl_limiter *lim, struct rl_gcra *st,
						       int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;
	return rl__gcra_decide_whole(lim, st, rl__clamp_record(&st->last_ns, now_ns), cost, out);
}

/* One request of cost 1 without an answer: algo.h's verdict op. */
static RL_ALWAYS_INLINE int rl__gcra_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__gcra_decide(lim, st, now_ns, 1, NULL);
}

#endif
