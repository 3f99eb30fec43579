/*
 * token_bucket.c - model: tokens(t) = min(B, tokens(t0) + (t - t0) * N / W);
 * a request of cost c is admitted iff tokens >= c, then takes c. Kept as
 * the missing tokens times W (level.h), which drains by exactly N per ns:
 * admit iff level + c * W <= B * W, then level += c * W.
 *
 * Invariant: in any interval of length d at most B + N * d / W units are
 * admitted (B at its start, N * d / W refilled during it).
 */
#include "ratelab/token_bucket.h"

#include "fixed_state.h"
#include "token_bucket_ops.h"

/* The answer's divisions, out of line so that the verdict-only path stays small;
 * level is the level after the decision. */
static RL_NOINLINE void explain(const struct rl_limiter *lim, rl__u128 level,
					      int64_t cost, int verdict, struct rl_decision *out)
{
	rl__u128 w = (uint64_t)lim->rule.window_ns, n = (uint64_t)lim->rule.limit;
	rl__u128 take = w * (uint64_t)cost;

	rl__u128 bw = rl__wide_get(rl__level_priv(lim)->burst_w);

	/* a level beyond B * W is a settle's debt (settle.h): nothing remains */
	out->remaining = level < bw ? (int64_t)((bw - level) / w) : 0;
	if (verdict)
		out->retry_after_ns = 0;
	else if (take > rl__wide_get(rl__level_priv(lim)->burst_w)) /* c > B: never */
		out->retry_after_ns = RL_DURATION_MAX_NS;
	else /* the smallest d with level - d * N + c * W <= B * W */
		out->retry_after_ns = rl__sat_ns(rl__ceil_div(level + take - rl__wide_get(rl__level_priv(lim)->burst_w), n));
	out->reset_ns = rl__sat_ns(rl__ceil_div(level, n));
	out->delay_ns = 0;
}

/*
 * The check for any cost, inlined into each entry point: with the constant
 * cost 1 its cost arithmetic folds away, so plain requests pay nothing for
 * weighted ones.
 */
static RL_ALWAYS_INLINE int
decide(const struct rl_limiter *lim, struct rl_level *st, int64_t now_ns, int64_t cost,
       struct rl_decision *out)
{
	if (!rl__time_ok(now_ns))
		return RL_ERANGE;
	if (!rl__cost_ok(cost))
		return RL_EINVAL;

	/* level + c * W <= B * W (level_ops.h) */
	struct rl__level_step step = rl__token_bucket_step(lim, st, now_ns, cost);
	int verdict = (int)(step.admitted & 1);

	if (out)
		explain(lim, verdict ? step.before + (rl__u128)(uint64_t)lim->rule.window_ns * (uint64_t)cost : step.before,
			cost, verdict, out);
	return verdict;
}

/* c > B: never admitted (algo.h). */
static inline bool never_fits(const struct rl_limiter *lim, int64_t cost)
{
	return cost > lim->rule.burst;
}

RL__FIXED_STATE_OPS(struct rl_level, decide, never_fits, rl__token_bucket_verdict, RL_NOINLINE)

static bool idle_op(const struct rl_limiter *lim, const void *st, int64_t now_ns)
{
	return rl__level_empty(lim, st, now_ns);
}

/* B tokens at a, N * span / W refilled during [a, a + span]. */
static int64_t bound_op(const struct rl_limiter *lim, int64_t span_ns)
{
	return rl__sat_count((rl__u128)lim->rule.burst +
			    (rl__u128)lim->rule.limit * (rl__u128)span_ns / (rl__u128)lim->rule.window_ns);
}

/* An empty bucket and B tokens owed at most (token_bucket.h). */
static bool state_ok_op(const struct rl_limiter *lim, const void *state)
{
	return rl__level_state_ok(lim, state, 0);
}

const struct rl_algo rl_token_bucket_algo = {
	.name = "token_bucket",
	.state_size = sizeof(struct rl_level),
	.priv_size = sizeof(struct rl__level_priv),
	.init = rl__level_init,
	.check = check_op,
	.verdict = verdict_op,
	.is_idle = idle_op,
	.release = NULL,
	.max_admitted = bound_op,
	.uses_burst = true,
	.rerule = rl__level_rerule,
	.state_ok = state_ok_op,
	.last_ns = rl__level_last_ns,
};

#include "settle_ops.h"

/* settle.h: the bucket's tokens at now less delta, in [-B, B]. */
int rl__token_bucket_settle(const struct rl_limiter *lim, void *state, int64_t admitted_ns, int64_t delta,
			    int64_t now_ns)
{
	(void)admitted_ns; /* a bucket keeps no request apart */
	return rl__level_settle(lim, state, delta, now_ns, 0);
}
