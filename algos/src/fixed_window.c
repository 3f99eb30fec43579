/*
 * fixed_window.c - model: time is cut into windows [kW, (k+1)W); a request
 * of cost c is admitted iff the units admitted in its window plus c are at
 * most N.
 *
 * Invariant: at most N units admitted per window, hence at most 2N in any
 * interval of length W (N at the end of one window, N at the start of the
 * next) and at most N * (ceil(d / W) + 1) in any interval of length d.
 */
#include "ratelab/fixed_window.h"

#include "fixed_window_ops.h"

/*
 * A cost other than 1, out of line so that the cost-1 path (its arithmetic
 * folded) stays as small as before costs existed; a cost above N, which is
 * never admitted, decided on a copy so that the key's state is left
 * unchanged (algo.h).
 */
static RL_NOINLINE int weighted(const struct rl_limiter *lim, struct rl_fixed_window *st,
					      int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	if (cost > lim->rule.limit) {
		struct rl_fixed_window copy = *st;
		return rl_fixed_window_decide(lim, &copy, now_ns, cost, out);
	}
	return rl_fixed_window_decide(lim, st, now_ns, cost, out);
}

int rl_fixed_window_check(const struct rl_limiter *lim, struct rl_fixed_window *st, int64_t now_ns,
			  struct rl_decision *out)
{
	return rl_fixed_window_decide(lim, st, now_ns, 1, out);
}

int rl_fixed_window_check_n(const struct rl_limiter *lim, struct rl_fixed_window *st,
			    int64_t now_ns, int64_t cost, struct rl_decision *out)
{
	return cost == 1 ? rl_fixed_window_decide(lim, st, now_ns, 1, out) : weighted(lim, st, now_ns, cost, out);
}

static int check_op(const struct rl_limiter *lim, void *st, int64_t now_ns, int64_t cost,
		    struct rl_decision *out)
{
	return cost == 1 ? rl_fixed_window_decide(lim, st, now_ns, 1, out) : weighted(lim, st, now_ns, cost, out);
}

/* check for cost 1 without an answer: algo.h's verdict op. */
static int verdict_op(const struct rl_limiter *lim, void *st, int64_t now_ns)
{
	return rl_fixed_window_verdict(lim, st, now_ns);
}

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_fixed_window *st = state;

	(void)lim;
	return st->count == 0 || rl_clamp(now_ns, st->last_ns) >= st->end_ns;
}

/* At most N in each aligned window the interval meets. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl_sat_count((rl_u128)lim->rule.limit * rl_windows_met(span_ns, lim->rule.window_ns));
}

const struct rl_algo rl_fixed_window_algo = {
	.name = "fixed_window",
	.state_size = sizeof(struct rl_fixed_window),
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
};
