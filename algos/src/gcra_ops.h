/*
 * gcra_ops.h - private: gcra's check (gcra.c), inline, for the
 * thread-safe routes that run its cost-1 verdict under their lock
 * (verdicts.h says why).
 *
 * Times past the whole ns are kept as pairs (ns, frac): the value ns +
 * frac / N, 0 <= frac < N, N the rule's limit. T = W / N is the pair
 * (floor(W / N), W mod N), exact for every N and W; tau likewise. The
 * cost-1 check adds and compares pairs with one-word operations only: no
 * multiply, no division.
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

/* True when T is a whole number of ns (N divides W): every frac stays 0. */
static inline bool rl__gcra_whole(const struct rl_limiter *lim)
{
	return rl__gcra_priv(lim)->emission_frac == 0;
}

/* A pair (ns, frac) in 1/N ns, as one 128-bit count of 1/N ns. */
static inline rl__u128 rl__gcra_units(int64_t ns, uint64_t frac, int64_t n)
{
	return (rl__u128)(uint64_t)ns * (uint64_t)n + frac;
}

/*
 * The answer, out of the verdict path: debt (d_ns, d_frac) after the
 * decision, last_u = (c - 1) * W in 1/N ns. remaining = floor((tau -
 * debt) / T) + 1 units while debt <= tau; retry_after_ns the least whole d
 * with debt - d + (c - 1) * T <= tau, i.e. ceil(debt + (c - 1) * T - tau);
 * reset_ns ceil(debt).
 */
static RL_NOINLINE void rl__gcra_explain(const struct rl_limiter *lim, int64_t d_ns, uint64_t d_frac,
					 rl__u128 last_u, int verdict, struct rl_decision *out)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	int64_t n = lim->rule.limit;
	rl__u128 debt_u = rl__gcra_units(d_ns, d_frac, n), tol_u = rl__wide_get(p->tolerance_u);

	out->remaining = debt_u <= tol_u ? rl__sat_count((tol_u - debt_u) / (uint64_t)lim->rule.window_ns + 1) : 0;
	if (verdict)
		out->retry_after_ns = 0;
	else if (last_u > tol_u) /* (c - 1) * T > tau: never */
		out->retry_after_ns = RL_DURATION_MAX_NS;
	else
		out->retry_after_ns = rl__sat_ns(rl__ceil_div(debt_u + last_u - tol_u, (uint64_t)n));
	out->reset_ns = d_ns + (d_frac != 0);
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

	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	uint64_t n = (uint64_t)lim->rule.limit;
	int64_t now = rl__clamp_record(&st->last_ns, now_ns);
	/* max(TAT, now): TAT >= now iff tat_ns >= now, frac being >= 0 */
	bool ahead = st->tat_ns >= now;
	int64_t base_ns = ahead ? st->tat_ns : now;
	uint64_t base_frac = ahead ? st->tat_frac : 0;
	/* debt = max(TAT, now) - now: how far the key runs ahead of its rate */
	int64_t d_ns = base_ns - now;
	/* the request's units after its first, (c - 1) * T: up to 10^30 / N ns */
	rl__u128 last_u = (rl__u128)(uint64_t)(cost - 1) * (uint64_t)lim->rule.window_ns;
	int64_t l_ns = 0;
	uint64_t l_frac = 0;
	int fits = 1;

	if (cost != 1) {
		fits = last_u <= rl__wide_get(p->tolerance_u);
		/* once (c - 1) * T <= tau < 2^63 ns its pair is one-word */
		l_ns = fits ? (int64_t)(last_u / n) : 0;
		l_frac = fits ? (uint64_t)(last_u % n) : 0;
	}
	/* debt + (c - 1) * T <= tau, as pairs: the sum of two values below
	 * 2^63 is exact in uint64 */
	uint64_t s_frac = base_frac + l_frac;
	uint64_t s_carry = s_frac >= n;
	uint64_t s_ns = (uint64_t)d_ns + (uint64_t)l_ns + s_carry;
	s_frac -= n & -s_carry;
	int verdict = fits & ((s_ns < (uint64_t)p->tolerance_ns) |
			      ((s_ns == (uint64_t)p->tolerance_ns) & (s_frac <= p->tolerance_frac)));

	if (verdict) {
		/* TAT = max(TAT, now) + c * T; debt + c * T <= tau + T: no overflow */
		uint64_t t_frac = s_frac + p->emission_frac;
		uint64_t t_carry = t_frac >= n;
		int64_t t_ns = (int64_t)s_ns + p->emission_ns + (int64_t)t_carry;
		t_frac -= n & -t_carry;
		st->tat_ns = now + t_ns;
		st->tat_frac = t_frac;
		d_ns = t_ns;
		base_frac = t_frac;
	}
	if (out)
		rl__gcra_explain(lim, d_ns, base_frac, last_u, verdict, out);
	return verdict;
}

/* One request of cost 1 without an answer: algo.h's verdict op. */
static RL_ALWAYS_INLINE int rl__gcra_verdict(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl__gcra_decide(lim, st, now_ns, 1, NULL);
}

#endif
