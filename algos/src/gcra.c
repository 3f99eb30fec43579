/*
 * gcra.c - model: the generic cell rate algorithm (ATM Forum's virtual
 * scheduling form). T = ceil(W / N) ns, tau = min((B - 1) * T, horizon)
 * (gcra.h). A request at t is admitted iff TAT - t <= tau; then
 * TAT = max(TAT, t) + T.
 *
 * Invariant: in any interval of length d at most B + d / T <= B + N * d / W
 * requests are admitted, and TAT <= t + tau + T <= INT64_MAX, so it never
 * overflows; when N divides W and tau is not capped every decision equals
 * token_bucket's.
 */
#include "ratelab/gcra.h"

#include "arith.h"

/* The answer's division, out of line so that the verdict-only path stays small. */
static __attribute__((noinline)) void explain(int64_t debt, int64_t tol, int64_t t, int verdict,
					      struct rl_decision *out)
{
	/* admissions still possible at now: debt + k * T <= tol + T */
	out->remaining = debt <= tol ? (tol - debt) / t + 1 : 0;
	out->retry_after_ns = verdict ? 0 : debt - tol;
	out->reset_ns = debt;
	out->delay_ns = 0;
}

int rl_gcra_check(const struct rl_limiter *lim, struct rl_gcra *st, int64_t now_ns,
		  struct rl_decision *out)
{
	if (!rl_time_ok(now_ns))
		return RL_ERANGE;

	int64_t now = rl_clamp(now_ns, st->last_ns);
	int64_t t = lim->emission_ns;
	int64_t tat = st->tat_ns > now ? st->tat_ns : now;
	/* debt: how far the key runs ahead of its rate, ns; tau <= INT64_MAX (gcra.h) */
	int64_t debt = tat - now;
	int64_t tol = (int64_t)lim->tolerance_ns;
	int verdict = debt <= tol ? RL_ALLOWED : RL_REJECTED;

	st->last_ns = now;
	if (verdict) {
		debt += t;
		st->tat_ns = tat + t;
	}
	if (out)
		explain(debt, tol, t, verdict, out);
	return verdict;
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, struct rl_decision *out)
{
	return rl_gcra_check(lim, st, now_ns, out);
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_gcra *st = state;

	(void)lim;
	return st->tat_ns <= rl_clamp(now_ns, st->last_ns);
}

const struct rl_algo rl_gcra_algo = {
	.name = "gcra",
	.uses_burst = true,
	.state_size = sizeof(struct rl_gcra),
	.check = check_op,
	.is_idle = idle_op,
	.release = NULL,
};
