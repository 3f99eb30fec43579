/*
 * gcra.c - model: the generic cell rate algorithm (ATM Forum's virtual
 * scheduling form). T = ceil(W / N) ns, tau = min((B - 1) * T, horizon)
 * (gcra.h). A request of cost c at t is admitted iff
 * TAT' - t <= tau + T with TAT' = max(TAT, t) + c * T, i.e. iff
 * debt + (c - 1) * T <= tau with debt = max(TAT, t) - t; then TAT = TAT'.
 *
 * Invariant: in any interval of length d at most B + d / T <= B + N * d / W
 * units are admitted, and TAT <= t + tau + T <= INT64_MAX, so it never
 * overflows ((c - 1) * T is compared in 128 bits); when N divides W and tau
 * is not capped every decision equals token_bucket's.
 */
#include "ratelab/gcra.h"

#include <string.h>

#include "arith.h"
#include "gcra_cas.h"
#include "fixed_state.h"
#include "gcra_ops.h"

/* (c - 1) * T > tau: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);

	return (rl__u128)((uint64_t)cost - 1) * (uint64_t)p->emission_ns > (uint64_t)p->tolerance_ns;
}

RL__FIXED_STATE_OPS(struct rl_gcra, rl__gcra_decide, never_fits, rl__gcra_verdict, RL_NOINLINE)

#if RL_HAVE_CAS16
_Static_assert(sizeof(struct rl_gcra) == sizeof(rl__u128), "a gcra state is one 16-byte word");

/* rl__gcra_decide() inlined on a copy held in registers, and rl__cas16 inlined (the
 * reason for RL_TARGET_CX16): the retry loop is one function, with no
 * store and reload of the state between the read and the swap. */
RL_TARGET_CX16 int rl__gcra_check_cas16(const struct rl_limiter *lim, rl__u128 *word, int64_t now_ns,
				       struct rl_decision *out)
{
	rl__u128 seen = rl__load16_guess(word), next;
	struct rl_gcra st;
	struct rl_decision dec;
	int rc;

	do {
		memcpy(&st, &seen, sizeof(st));
		rc = rl__gcra_decide(lim, &st, now_ns, 1, out ? &dec : NULL);
		if (rc < 0)
			return rc;
		memcpy(&next, &st, sizeof(next));
	} while (!rl__cas16(word, &seen, next));
	if (out)
		*out = dec;
	return rc;
}
#endif

/* T = ceil(W / N); tau = (B - 1) * T, capped so that TAT - now stays below the horizon. */
static int init_op(struct rl_limiter *lim, char *msg, size_t msg_len)
{
	struct rl__gcra_priv *p = (struct rl__gcra_priv *)(void *)lim->priv.bytes;
	rl__u128 n = (rl__u128)lim->rule.limit, w = (rl__u128)lim->rule.window_ns, b = (rl__u128)lim->rule.burst;
	int64_t t = (int64_t)rl__ceil_div(w, n);
	rl__u128 tolerance = (b - 1) * (rl__u128)t, horizon = (rl__u128)(RL_GCRA_HORIZON_NS - t);

	(void)msg;
	(void)msg_len;
	p->emission_ns = t;
	p->tolerance_ns = (int64_t)(tolerance < horizon ? tolerance : horizon);
	return RL_OK;
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_gcra *st = state;

	(void)lim;
	return st->tat_ns <= rl__clamp(now_ns, st->last_ns);
}

/*
 * k admissions from t1 to tk push TAT to at least t1 + k * T, and the kth
 * needed TAT - tk <= tau before it: (k - 1) * T <= span + tau, so at most
 * 1 + floor((span + tau) / T), i.e. B + span / T when tau = (B - 1) * T.
 */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);

	return rl__sat_count(1 + ((rl__u128)span_ns + p->tolerance_ns) / (rl__u128)p->emission_ns);
}

/*
 * debt1 = min(ceil(debt0 * T1 / T0), tau1 + T1) (gcra.h): debt0 <=
 * tau0 + T0 < 2^63 and T1 <= 10^18 < 2^60, so the product fits 128 bits;
 * now + debt1 <= RL_TIME_MAX_NS + RL_GCRA_HORIZON_NS = INT64_MAX.
 */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_gcra *st = state;
	const struct rl__gcra_priv *p0 = rl__gcra_priv(from), *p1 = rl__gcra_priv(to);
	rl__u128 debt0 = st->tat_ns > now ? (uint64_t)(st->tat_ns - now) : 0;
	rl__u128 debt1 = rl__ceil_div(debt0 * (uint64_t)p1->emission_ns, (uint64_t)p0->emission_ns);
	rl__u128 most = (rl__u128)(uint64_t)p1->tolerance_ns + (uint64_t)p1->emission_ns;

	st->tat_ns = now + (int64_t)(debt1 < most ? debt1 : most);
	st->last_ns = now;
}

/* last_ns a time; 0 <= TAT <= last_ns + tau + T, what a check leaves (gcra.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	const struct rl_gcra *st = state;
	const struct rl__gcra_priv *p = rl__gcra_priv(lim);

	return rl__time_ok(st->last_ns) && st->tat_ns >= 0 &&
	       st->tat_ns - st->last_ns <= p->tolerance_ns + p->emission_ns;
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
