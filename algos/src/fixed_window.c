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

#include "fixed_state.h"
#include "fixed_window_ops.h"

/* c > N: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	return cost > lim->rule.limit;
}

/* its answer is a few operations more than its verdict: inline */
RL__FIXED_STATE_OPS(struct rl_fixed_window, rl__fixed_window_decide, never_fits, rl__fixed_window_verdict,
		    RL_ALWAYS_INLINE)

static bool idle_op(const struct rl_limiter *lim, const void *state, int64_t now_ns)
{
	const struct rl_fixed_window *st = state;

	(void)lim;
	return st->count == 0 || rl__clamp(now_ns, st->last_ns) >= st->end_ns;
}

/* At most N in each aligned window the interval meets. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.limit * rl__windows_met(span_ns, lim->rule.window_ns));
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

#include "settle_ops.h"

/* settle.h: within the admission's window only; the count kept in [0, N]. */
int rl__fixed_window_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns)
{
	struct rl_fixed_window *st = state;
	int64_t now = rl__clamp(now_ns, st->last_ns), w = lim->rule.window_ns;

	/* the state's window is the admission's, and now has not left it */
	if (admitted_ns < st->end_ns - w || admitted_ns >= st->end_ns || now >= st->end_ns)
		return RL_OK;
	int64_t count = (int64_t)st->count + delta;
	st->count = (uint32_t)(count < 0 ? 0 : count > lim->rule.limit ? lim->rule.limit : count);
	return RL_OK;
}
