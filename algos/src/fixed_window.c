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

/*
 * While now's window under W0 holds admissions (now < end_ns), its count
 * carries, clamped to N1, into the W1 window holding now; once it has
 * ended nothing carries: the W1 window holding now starts empty, as the
 * check would start it (fixed_window.h).
 */
static void rerule_op(const struct rl_limiter *from, const struct rl_limiter *to, void *state, int64_t now)
{
	struct rl_fixed_window *st = state;
	int64_t w1 = to->rule.window_ns;

	if (now >= st->end_ns)
		st->count = 0;
	else if ((uint64_t)st->count > (uint64_t)to->rule.limit)
		st->count = (uint64_t)to->rule.limit;
	if (now >= st->end_ns || w1 != from->rule.window_ns)
		st->end_ns = now - now % w1 + w1;
	st->last_ns = now;
}

/* Zeroed (a fresh key), or last_ns a time, end_ns a multiple of W in
 * (last_ns, last_ns + W], count <= N (fixed_window.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	const struct rl_fixed_window *st = state;
	int64_t w = lim->rule.window_ns;

	if (st->last_ns == 0 && st->end_ns == 0 && st->count == 0)
		return true;
	return rl__time_ok(st->last_ns) && st->end_ns > st->last_ns && st->end_ns - st->last_ns <= w &&
	       st->end_ns % w == 0 && st->count <= (uint64_t)lim->rule.limit;
}

static int64_t last_ns_op(const void *state)
{
	return ((const struct rl_fixed_window *)state)->last_ns;
}

const struct rl_algo rl_fixed_window_algo = {
	.name = "fixed_window",
	.state_size = sizeof(struct rl_fixed_window),
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
	.rerule = rerule_op,
	.state_ok = state_ok_op,
	.last_ns = last_ns_op,
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
	st->count = (uint64_t)(count < 0 ? 0 : count > lim->rule.limit ? lim->rule.limit : count);
	return RL_OK;
}
