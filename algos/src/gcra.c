/*
 * gcra.c - model: the generic cell rate algorithm (ATM Forum's virtual
 * scheduling form). T = W / N exactly, tau = min((B - 1) * T, horizon)
 * (gcra.h), both kept as whole ns and a fraction in 1/N ns. A request of
 * cost c at t is admitted iff TAT' - t <= tau + T with
 * TAT' = max(TAT, t) + c * T, i.e. iff debt + (c - 1) * T <= tau with
 * debt = max(TAT, t) - t; then TAT = TAT'.
 *
 * Invariant: in any interval of length d at most B + d / T = B + N * d / W
 * units are admitted, and TAT <= t + tau + T <= INT64_MAX, so it never
 * overflows ((c - 1) * T is compared in 128 bits); while tau is not capped
 * every decision equals token_bucket's.
 */
#include "ratelab/gcra.h"

#include <stddef.h>
#include <string.h>

#include "arith.h"
#include "gcra_cas.h"
#include "fixed_state.h"
#include "gcra_ops.h"

/* (c - 1) * T > tau: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);

	return (rl__u128)((uint64_t)cost - 1) * (uint64_t)lim->rule.window_ns > rl__wide_get(p->tolerance_u);
}

RL__FIXED_STATE_OPS(struct rl_gcra, rl__gcra_decide, never_fits, rl__gcra_verdict, RL_NOINLINE)

#if RL_HAVE_CAS16
_Static_assert(offsetof(struct rl_gcra, tat_frac) == sizeof(rl__u128),
	       "a whole-ns gcra state's changing part is one 16-byte word");

/* rl__gcra_decide() inlined on a copy held in registers, and rl__cas16 inlined (the
 * reason for RL_TARGET_CX16): the retry loop is one function, with no
 * store and reload of the state between the read and the swap. For a
 * rule with T whole (rl__gcra_whole), whose checks keep tat_frac 0: the
 * whole-ns check alone (rl__gcra_decide_whole_rule). */
RL_TARGET_CX16 int rl__gcra_check_cas16(const struct rl_limiter *lim, rl__u128 *word, int64_t now_ns,
				       struct rl_decision *out)
{
	rl__u128 seen = rl__load16_guess(word), next;
	struct rl_gcra st = { 0 };
	struct rl_decision dec;
	int rc;

	do {
		memcpy(&st, &seen, sizeof(seen));
		rc = rl__gcra_decide_whole_rule(lim, &st, now_ns, 1, out ? &dec : NULL);
		if (rc < 0)
			return rc;
		memcpy(&next, &st, sizeof(next)); /* tat_frac stays 0: T is whole */
	} while (!rl__cas16(word, &seen, next));
	if (out)
		*out = dec;
	return rc;
}
#endif

/* T = W / N and tau = (B - 1) * T, capped so that TAT - now stays below
 * the horizon, as whole ns and a fraction in 1/N ns: (B - 1) * W < 2^100
 * and the horizon times N below 2^103. */
static int init_op(struct rl_limiter *lim, char *msg, size_t msg_len)
{
	struct rl__gcra_priv *p = (struct rl__gcra_priv *)(void *)lim->priv.bytes;
	rl__u128 n = (rl__u128)lim->rule.limit, w = (rl__u128)lim->rule.window_ns, b = (rl__u128)lim->rule.burst;
	rl__u128 tolerance = (b - 1) * w, horizon = (rl__u128)RL_GCRA_HORIZON_NS * n - w;
	rl__u128 tol = tolerance < horizon ? tolerance : horizon;

	(void)msg;
	(void)msg_len;
	p->emission_ns = (int64_t)(w / n);
	p->emission_frac = (uint64_t)(w % n);
	p->tolerance_ns = (int64_t)(tol / n);
	p->tolerance_frac = (uint64_t)(tol % n);
	p->tolerance_u = rl__wide_make(tol);
	return RL_OK;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_gcra *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);

	(void)lim;
	return st->tat_ns < now || (st->tat_ns == now && st->tat_frac == 0);
}

/*
 * k admissions from t1 to tk push TAT to at least t1 + k * T, and the kth
 * needed TAT - tk <= tau before it: (k - 1) * T <= span + tau, so at most
 * 1 + floor((span + tau) / T) = 1 + floor((span * N + tau * N) / W), i.e.
 * B + span / T when tau = (B - 1) * T. span * N < 2^102.
 */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);
	rl__u128 span_u = (rl__u128)(uint64_t)span_ns * (uint64_t)lim->rule.limit;

	return rl__sat_count(1 + (span_u + rl__wide_get(p->tolerance_u)) / (uint64_t)lim->rule.window_ns);
}

/*
 * In 1/N ns: D0 = debt0 * N0, D1 = min(ceil(D0 * W1 / W0), (tau1 + T1) * N1)
 * as q * W1 + ceil(r * W1 / W0), q = D0 / W0 and r = D0 % W0 (gcra.h): D0
 * <= the debt cap <= 2 * B0 * W0 gives q <= 2 * B0 < 2^41, so q * W1 < 2^101
 * and r * W1 < 2^120. now + D1 / N1 <= RL_TIME_MAX_NS + RL_GCRA_HORIZON_NS
 * = INT64_MAX.
 */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_gcra *st = state;
	const struct rl__gcra_priv *p1 = rl__gcra_priv(to);
	uint64_t n0 = (uint64_t)from->rule.limit, n1 = (uint64_t)to->rule.limit;
	rl__u128 w0 = (uint64_t)from->rule.window_ns, w1 = (uint64_t)to->rule.window_ns;
	rl__u128 d0 = st->tat_ns >= now ? rl__gcra_units(st->tat_ns - now, st->tat_frac, (int64_t)n0) : 0;
	rl__u128 d1 = d0 / w0 * w1 + rl__ceil_div(d0 % w0 * w1, w0);
	rl__u128 most = rl__wide_get(p1->tolerance_u) + w1;

	if (d1 > most)
		d1 = most;
	st->tat_ns = now + (int64_t)(d1 / n1);
	st->tat_frac = (uint64_t)(d1 % n1);
	st->last_ns = now;
}

/* The deepest debt a settle leaves (gcra.h), in 1/N ns:
 * min(2 * (tau + T), RL_GCRA_HORIZON_NS) * N, below 2^103. */
static rl__u128 debt_cap(const struct rl_limiter *lim)
{
	rl__u128 twice = 2 * (rl__wide_get(rl__gcra_priv(lim)->tolerance_u) + (uint64_t)lim->rule.window_ns);
	rl__u128 horizon = (rl__u128)RL_GCRA_HORIZON_NS * (uint64_t)lim->rule.limit;

	return twice < horizon ? twice : horizon;
}

/* last_ns a time; 0 <= tat_ns, tat_frac < N, TAT <= last_ns + the debt
 * cap, what a check or a settle leaves (gcra.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	const struct rl_gcra *st = state;

	if (!rl__time_ok(st->last_ns) || st->tat_ns < 0 || st->tat_frac >= (uint64_t)lim->rule.limit)
		return false;
	return st->tat_ns < st->last_ns ||
	       rl__gcra_units(st->tat_ns - st->last_ns, st->tat_frac, lim->rule.limit) <= debt_cap(lim);
}

static int64_t last_ns_op(const void *state)
{
	return ((const struct rl_gcra *)state)->last_ns;
}

const struct rl_algo rl_gcra_algo = {
	.name = "gcra",
	.state_size = sizeof(struct rl_gcra),
	.priv_size = sizeof(struct rl__gcra_priv),
	.init = init_op,
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
	.uses_burst = true,
	.rerule = rerule_op,
	.state_ok = state_ok_op,
	.last_ns = last_ns_op,
};

#include "settle_ops.h"

/*
 * settle.h, in 1/N ns (gcra.h): D = (max(TAT, now) - now) * N, plus
 * delta * W, in [0, the debt cap]; TAT = now + D / N, last_ns = now.
 * |delta| * W <= 10^30 and D below 2^103: exact in 128 bits; TAT <=
 * RL_TIME_MAX_NS + horizon = INT64_MAX.
 */
int rl__gcra_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta, int64_t now_ns)
{
	struct rl_gcra *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns), n = lim->rule.limit;
	rl__u128 debt = st->tat_ns >= now ? rl__gcra_units(st->tat_ns - now, st->tat_frac, n) : 0;
	rl__u128 cap = debt_cap(lim);
	rl__u128 units = (rl__u128)(delta < 0 ? -(uint64_t)delta : (uint64_t)delta) * (uint64_t)lim->rule.window_ns;

	(void)admitted_ns; /* the TAT keeps no request apart */
	if (delta > 0)
		debt = debt + units < cap ? debt + units : cap;
	else
		debt = debt > units ? debt - units : 0;
	st->tat_ns = now + (int64_t)(debt / (uint64_t)n);
	st->tat_frac = (uint64_t)(debt % (uint64_t)n);
	st->last_ns = now;
	return RL_OK;
}

/* ceil(max(TAT, now) - now), ns. */
int64_t rl__gcra_reset_ns(const void *state, int64_t now_ns)
{
	const struct rl_gcra *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns);

	return st->tat_ns >= now ? st->tat_ns - now + (st->tat_frac != 0) : 0;
}
